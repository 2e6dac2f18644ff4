// `credit-note poll` on a team (SVC_DATABASE_URL) keeps the requests it lists in the shared
// ledger (docs/interface-decisions.md#outstanding-queue, docs/teams.md). With PostgreSQL down the queue is still
// shown, and stderr says the team ledger could not be reached and what was not kept: exit 8.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runSvc } from './helpers.js';
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
});
