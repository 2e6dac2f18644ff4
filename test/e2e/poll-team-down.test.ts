// `credit-note poll` on a team (SVC_DATABASE_URL) keeps the requests it lists in the shared
// ledger (docs/interface-decisions.md#outstanding-queue, docs/teams.md). With PostgreSQL down the queue is still
// shown, and stderr says the team ledger could not be reached and what was not kept: exit 8.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { runSvc, svcBin, svcEnv } from './helpers.js';
import { milkRequests, useMerchant } from './merchant.js';

const { merchant } = useMerchant();

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('credit-note poll with the team database down', () => {
  it.each([[[]], [['--json']], [['--no-decrypt']]])('%j: the queue on stdout, "not kept" and the database named on stderr (no password), exit 8', async (flags) => {
    const [requestId] = await milkRequests(merchant(), 1);
    const url = `postgres://svc:hunter2-secret@127.0.0.1:${await closedPort()}/svc`;
    const r = await runSvc(['credit-note', 'poll', ...flags], { home: merchant().home, env: { ...merchant().env, SVC_DATABASE_URL: url } });
    expect(r.exitCode, r.stderr).toBe(8);
    expect(r.stdout).toContain(requestId);
    expect(r.stderr).toMatch(/not kept/);
    expect(r.stderr).toMatch(/the database postgres:\/\/svc:\*\*\*@127\.0\.0\.1:\d+\/svc is unreachable/);
    expect(r.stderr).not.toContain('hunter2-secret');
  });

  /** Requests of the queue: two of three rejected, so that the service lists more than poll shows (the open ones). */
  async function someClosed(): Promise<{ listed: number; url: string }> {
    const ids = await milkRequests(merchant(), 3);
    for (const id of ids.slice(1)) await merchant().svc(['credit-note', 'reject', id, '--yes']);
    const listed = (await merchant().json<unknown[]>(['credit-note', 'poll', '--all', '--no-decrypt'])).length;
    return { listed, url: `postgres://svc@127.0.0.1:${await closedPort()}/svc` };
  }

  it('says how many of the requests not kept were shown: every one listed is kept, the open ones shown', async () => {
    const { listed, url } = await someClosed();
    const r = await runSvc(['credit-note', 'poll', '--json', '--no-decrypt'], { home: merchant().home, env: { ...merchant().env, SVC_DATABASE_URL: url } });
    expect(r.exitCode, r.stderr).toBe(8);
    const shown = (JSON.parse(r.stdout) as unknown[]).length;
    expect(shown).toBeLessThan(listed);
    // The error as --json says it: an object on stderr.
    expect(r.stderr).toContain(`"message":"${listed} requests listed were not kept in the team ledger (${shown} of them shown): the database`);
  }, 120_000);

  it('a piped watch ended while it is down: as many never kept as it listed, and of them as many as it showed', async () => {
    const { listed, url } = await someClosed();
    const child = execa('node', [svcBin, 'credit-note', 'poll', '--watch', '--interval', '1', '--no-decrypt', '--json'], {
      env: svcEnv(merchant().home, { ...merchant().env, SVC_DATABASE_URL: url }),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    let err = '';
    child.stderr?.on('data', (c: Buffer) => void (err += c.toString()));
    for (const deadline = Date.now() + 60_000; !err.includes('not kept in the team ledger'); ) {
      if (Date.now() > deadline) throw new Error(`no warning:\n${err}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGINT');
    const ended = await child;
    expect(ended.exitCode, err).toBe(8);
    const shown = new Set(ended.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { requestId: string }).requestId)).size;
    expect(shown).toBeLessThan(listed);
    expect(err).toMatch(new RegExp(`warning: ${listed} requests listed are not kept in the team ledger \\(${shown} of them shown\\): the database`));
    expect(err).toContain(`"message":"${listed} requests the watch listed were never kept in the team ledger (${shown} of them shown): the database`);
  }, 120_000);
});
