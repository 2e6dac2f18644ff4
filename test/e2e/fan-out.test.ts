// One command over many companies (issue 25 item 2): a sandbox whose administrator approved
// the POS client for 12 companies (`--companies 12`), a rate limit of 1 request/s per Grant
// (burst 2), and a proxy in front of it that refuses one Grant's details with 403 and
// records every request.
// A revoked Grant and the 403 are reported for themselves, the others are listed, exit 9;
// no request arrives while a Retry-After holds the run.
import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { makeSvcHome, repoRoot, runSvc, startSandbox, svcBin, svcEnv, tempDirs, type SandboxProcess, type SvcHome } from './helpers.js';
import { startHoldProxy } from './hold-proxy.js';
import { receiptDatedToday } from './merchant.js';
import { expectNoRequestWhileHeld, startRecordingProxy, type RecordingProxy } from './recording-proxy.js';
import { fixtureWithOwnRedirect, loginAutoApproved } from './oauth-fixture.js';
import { freeLoopbackPort } from '../../src/net-port.js';

const COMPANIES = 12;
const dirs = tempDirs();
let sandbox: SandboxProcess;
let proxy: RecordingProxy;
let home: SvcHome;
let grants: { grant_id: string; company_legal_name: string; issuer_company_id: string; tax_id: string }[];

beforeAll(async () => {
  const fixture = await fixtureWithOwnRedirect(dirs);
  sandbox = await startSandbox(['--fixture', fixture.path, '--auto-approve', '--companies', String(COMPANIES), '--rate-limit', '1']);
  home = await makeSvcHome(dirs);
  const { result } = await loginAutoApproved(home, sandbox.url, fixture);
  expect(result.exitCode, result.stderr).toBe(0);
  const keys = await runSvc(['keys', 'generate', '--upload'], { home, env: { SVC_BASE_URL: sandbox.url } });
  expect(keys.exitCode, keys.stderr).toBe(0);
  proxy = await startRecordingProxy(sandbox.url);
  const listed = await runSvc(['grants', 'list', '--json'], { home, env: { SVC_BASE_URL: proxy.url } });
  grants = JSON.parse(listed.stdout) as typeof grants;
  expect(grants).toHaveLength(COMPANIES);
});

afterAll(async () => {
  await proxy?.close();
  await sandbox?.stop();
  await dirs.cleanup();
});

describe('grants list --details --all-grants over 12 companies', () => {
  it('a revoked Grant and a 403 in the middle are reported for themselves, the others listed, exit 9; no request while a Retry-After holds the run', async () => {
    const revoked = grants[3]!;
    const refused = grants[7]!;
    // By its company's tax ID, as --grant takes it; the line names the company.
    const revoke = await runSvc(['sandbox', 'revoke', revoked.tax_id], { home, env: { SVC_BASE_URL: sandbox.url } });
    expect(revoke.exitCode, revoke.stderr).toBe(0);
    expect(revoke.stderr).toContain(`Grant ${revoked.grant_id} of ${revoked.company_legal_name} (`);
    proxy.refuse = (method, path) => method === 'GET' && path === `/oauth2/grants/${refused.grant_id}`;
    proxy.seen = [];

    const json = await runSvc(['grants', 'list', '--details', '--all-grants', '--json'], { home, env: { SVC_BASE_URL: proxy.url } });
    expect(json.exitCode, json.stderr).toBe(9);
    const elements = JSON.parse(json.stdout) as { grantId: string; companyId: string; company?: string; stores?: unknown[]; error?: { exitCode: number } }[];
    expect(elements).toHaveLength(grants.length);
    const failed = elements.filter((e) => e.error !== undefined);
    // Each failure names its company as the table and the stderr line do.
    expect(failed.map((e) => [e.grantId, e.companyId, e.company, e.error?.exitCode])).toEqual([
      [revoked.grant_id, revoked.issuer_company_id, revoked.company_legal_name, 4],
      [refused.grant_id, refused.issuer_company_id, refused.company_legal_name, 5],
    ]);
    expect(elements.filter((e) => e.stores !== undefined).map((e) => e.grantId)).toEqual(grants.filter((g) => g !== revoked && g !== refused).map((g) => g.grant_id));
    // Under --json the failures are elements, and the exit code says the rest: no human line.
    expect(json.stderr).not.toContain('error:');

    expectNoRequestWhileHeld(proxy.seen);

    // A person gets one line per failed company on stderr and the table with COMPANY.
    const human = await runSvc(['grants', 'list', '--details', '--all-grants'], { home, env: { SVC_BASE_URL: proxy.url } });
    expect(human.exitCode).toBe(9);
    expect(human.stderr).toContain(`error: ${revoked.company_legal_name} (${revoked.grant_id}):`);
    // What to do about it, as the same failure of a single command says (was left out here).
    expect(human.stderr).toMatch(new RegExp(`error: ${revoked.company_legal_name} \\(${revoked.grant_id}\\):.*\\nhint: `));
    expect(human.stderr).toContain(`error: ${refused.company_legal_name} (${refused.grant_id}):`);
    expect(human.stdout).toContain(grants[11]!.company_legal_name);

    // Only failed Grants: the failure itself, one JSON error, nothing on stdout.
    const only = await runSvc(['grants', 'list', '--details', '--grants', '-', '--json'], { home, env: { SVC_BASE_URL: proxy.url }, input: `${revoked.grant_id}\n` });
    expect(only.exitCode).toBe(4);
    expect(only.stdout).toBe('');
    expect(JSON.parse(only.stderr)).toMatchObject({ error: { exitCode: 4 } });
    proxy.refuse = () => false;
  });

  it('the service unreachable for every company: one line for them all, not one each, and the final error keeps the hint', async () => {
    const down = { SVC_BASE_URL: `http://127.0.0.1:${await freeLoopbackPort()}` };
    const human = await runSvc(['grants', 'list', '--details', '--all-grants'], { home, env: down });
    expect(human.exitCode).toBe(8);
    const lines = human.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(lines, human.stderr).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^error: ${COMPANIES} companies \\(${grants[0]!.company_legal_name}, ${grants[1]!.company_legal_name}, ${grants[2]!.company_legal_name}, …\\): cannot reach the service`));
    expect(human.stderr).toMatch(/\nhint: is the sandbox running\?/);
    expect(human.stderr.match(/hint: is the sandbox running/g)).toHaveLength(1);
    const json = await runSvc(['grants', 'list', '--details', '--all-grants', '--json'], { home, env: down });
    expect(json.exitCode).toBe(8);
    expect((JSON.parse(json.stdout) as unknown[]).length).toBe(COMPANIES);
    const last = JSON.parse(json.stderr.trim().split('\n').at(-1)!) as { error: { hint: string | null } };
    expect(last.error.hint).toMatch(/is the sandbox running\?/);
  });

  it('credit-note poll --grants FILE: a selector per line; webhook subscribe --all-grants twice leaves one subscription per company', async () => {
    const env = { SVC_BASE_URL: sandbox.url };
    const poll = await runSvc(['credit-note', 'poll', '--no-decrypt', '--grants', '-', '--json'], { home, env, input: `${grants[2]!.company_legal_name}\n# a comment\n${grants[4]!.tax_id}\n` });
    expect(poll.exitCode, poll.stderr).toBe(0);
    expect(JSON.parse(poll.stdout)).toEqual([]);

    const live = grants.filter((g) => g !== grants[3]);
    const file = `${await dirs.make('svc-grants-')}/live.txt`;
    await writeFile(file, `${live.map((g) => g.grant_id).join('\n')}\n`);
    const url = 'http://127.0.0.1:9/hooks';
    for (let run = 0; run < 2; run++) {
      const subscribed = await runSvc(['webhook', 'subscribe', '--grants', file, '--url', url, '--json'], { home, env });
      expect(subscribed.exitCode, subscribed.stderr).toBe(0);
      const rows = JSON.parse(subscribed.stdout) as { grantId: string; reused: boolean }[];
      expect(rows.map((r) => r.grantId)).toEqual(live.map((g) => g.grant_id));
      expect(rows.every((r) => r.reused === (run === 1))).toBe(true);
    }
    const listed = await runSvc(['webhook', 'list', '--grants', file, '--json'], { home, env });
    expect(listed.exitCode, listed.stderr).toBe(0);
    const subscriptions = JSON.parse(listed.stdout) as { grantId: string; notificationUrl: string; secretStored: boolean }[];
    expect(subscriptions.filter((s) => s.notificationUrl === url).map((s) => s.grantId).sort()).toEqual(live.map((g) => g.grant_id).sort());
    expect(subscriptions.every((s) => s.secretStored)).toBe(true);
  });

  it('receipt send --batch: lines naming their company ("grant") are each issued under that Grant, as the sandbox\'s queues show', async () => {
    const env = { SVC_BASE_URL: sandbox.url };
    const [a, b, c] = [grants[2]!, grants[5]!, grants[9]!];
    const line = async (n: number, grant: string) => ({ template: JSON.parse(await readFile(await receiptDatedToday(dirs, `R-FAN-${n}`), 'utf8')) as unknown, email: 'alice@example.com', grant });
    const batch = `${await dirs.make('svc-batch-')}/batch.jsonl`;
    const lines = [await line(1, a.grant_id.slice(0, 8)), await line(2, b.company_legal_name.toLowerCase()), await line(3, c.grant_id), await line(4, 'platform shop')];
    await writeFile(batch, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const sent = await runSvc(['receipt', 'send', '--batch', batch], { home, env });
    // The fourth line's selector fits ten companies: that line alone fails, with the usage exit code.
    expect(sent.exitCode, sent.stderr).toBe(9);
    const results = sent.stdout.trim().split('\n').map((l) => JSON.parse(l) as { line: number; serviceReceiptId?: string; grantId?: string; error?: { message: string } });
    const byLine = new Map(results.map((r) => [r.line, r]));
    expect([1, 2, 3].map((n) => byLine.get(n)?.grantId)).toEqual([a.grant_id, b.grant_id, c.grant_id]);
    expect(byLine.get(4)?.error?.message).toContain('fits 10 companies');

    // The sandbox files each receipt's return under the company that issued it.
    const requests = new Map<string, string>();
    for (const n of [1, 2, 3]) {
      const trigger = await runSvc(['sandbox', 'trigger', 'return-request', byLine.get(n)!.serviceReceiptId!, '--item', '4001234567890:1'], { home, env });
      expect(trigger.exitCode, trigger.stderr).toBe(0);
      requests.set(trigger.stdout.trim(), [a, b, c][n - 1]!.grant_id);
    }
    const polled = await runSvc(['credit-note', 'poll', '--all-grants', '--no-decrypt', '--json'], { home, env });
    expect(polled.exitCode).toBe(9); // the revoked Grant of the first test
    const items = (JSON.parse(polled.stdout) as { requestId?: string; grantId: string }[]).filter((i) => i.requestId !== undefined && requests.has(i.requestId));
    expect(new Map(items.map((i) => [i.requestId!, i.grantId]))).toEqual(requests);
  });

  it('webhook subscribe --grants killed with SIGKILL after the service created a subscription it never heard back about: a re-run leaves exactly one per company', async () => {
    const live = grants.filter((g) => g !== grants[3]);
    const file = `${await dirs.make('svc-grants-')}/live.txt`;
    await writeFile(file, `${live.map((g) => g.grant_id).join('\n')}\n`);
    const url = 'http://127.0.0.1:9/killed';
    let posts = 0;
    const hold = await startHoldProxy(sandbox.url, { hold: (method, path) => method === 'POST' && path.split('?')[0] === '/webhook/subscription' && ++posts === 3, when: 'after' });
    try {
      const child = execa('node', [svcBin, 'webhook', 'subscribe', '--grants', file, '--url', url, '--concurrency', '2'], { env: svcEnv(home, { SVC_BASE_URL: hold.url }), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore' });
      const ended = child.then((r) => `svc ended before it was killed (exit ${r.exitCode}):\n${r.stderr}`);
      expect(await Promise.race([hold.held.then(() => 'held'), ended])).toBe('held');
      child.kill('SIGKILL');
      expect((await child).signal).toBe('SIGKILL');
    } finally {
      await hold.close();
    }
    const env = { SVC_BASE_URL: sandbox.url };
    const rerun = await runSvc(['webhook', 'subscribe', '--grants', file, '--url', url, '--json'], { home, env });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    const listed = await runSvc(['webhook', 'list', '--grants', file, '--json'], { home, env });
    expect(listed.exitCode, listed.stderr).toBe(0);
    const onService = (JSON.parse(listed.stdout) as { grantId: string; notificationUrl: string; onService: boolean | null; secretStored: boolean }[]).filter((s) => s.notificationUrl === url && s.onService === true);
    expect(onService.map((s) => s.grantId).sort()).toEqual(live.map((g) => g.grant_id).sort());
    expect(onService.every((s) => s.secretStored)).toBe(true);
  });

  it('a 429 storm: webhook unsubscribe --url over 11 companies, 3 requests each against a burst of 2, completes; nothing is sent while a Retry-After holds the run', async () => {
    const env = { SVC_BASE_URL: sandbox.url };
    const live = grants.filter((g) => g !== grants[3]);
    const file = `${await dirs.make('svc-grants-')}/live.txt`;
    await writeFile(file, `${live.map((g) => g.grant_id).join('\n')}\n`);
    const url = 'http://127.0.0.1:9/storm';
    for (const events of ['RETURN_REQUESTED', 'CREDIT_NOTE_CREATED']) {
      const subscribed = await runSvc(['webhook', 'subscribe', '--grants', file, '--url', url, '--events', events], { home, env });
      expect(subscribed.exitCode, subscribed.stderr).toBe(0);
    }
    // Every bucket full again (1 a second, 2 at most), then 3 requests per company at once: the list and two removals.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    proxy.seen = [];
    const removed = await runSvc(['webhook', 'unsubscribe', '--grants', file, '--url', url, '--json'], { home, env: { SVC_BASE_URL: proxy.url } });
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect((JSON.parse(removed.stdout) as { grantId: string }[]).length).toBe(2 * live.length);
    expect(expectNoRequestWhileHeld(proxy.seen)).toBeGreaterThan(0);
    const listed = await runSvc(['webhook', 'list', '--grants', file, '--json'], { home, env });
    expect((JSON.parse(listed.stdout) as { notificationUrl: string }[]).filter((s) => s.notificationUrl === url)).toEqual([]);
  });
});

describe('--grants FILE with comments after the selectors', () => {
  it('a `#` after whitespace starts a comment, as on a line of its own', async () => {
    const [a, b, c] = [grants[5]!, grants[6]!, grants[8]!];
    const input = `# the pilot\n${a.tax_id}  # ${a.company_legal_name}\n${b.grant_id}\t# tab then comment\n${c.company_legal_name} #\n`;
    const listed = await runSvc(['grants', 'list', '--details', '--grants', '-', '--json'], { home, env: { SVC_BASE_URL: sandbox.url }, input });
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { grantId: string }[]).map((e) => e.grantId)).toEqual([a, b, c].map((g) => g.grant_id));
  });
});
