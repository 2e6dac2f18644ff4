// Issue 25's "Done when" at a platform's scale: one sandbox whose administrator approved the
// POS client for 2,000 companies (`--companies 2000`), one login storing 2,000 Grants, a rate
// limit of 1 request/s per Grant (burst 2), and a recording proxy in front of it where a test
// needs to see every request or refuse one. (test/e2e/fan-out.test.ts runs the same cases on
// 12 companies, where each step is quick to follow.)
import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { makeSvcHome, repoRoot, runSvc, startSandbox, svcBin, svcEnv, tempDirs, type SandboxProcess, type SvcHome } from './helpers.js';
import { startHoldProxy } from './hold-proxy.js';
import { receiptDatedToday } from './merchant.js';
import { fixtureWithOwnRedirect, loginAutoApproved } from './oauth-fixture.js';
import { expectNoRequestWhileHeld, startRecordingProxy, type RecordingProxy } from './recording-proxy.js';

const COMPANIES = 2000;
const dirs = tempDirs();
let sandbox: SandboxProcess;
let proxy: RecordingProxy;
let home: SvcHome;
let grants: { grant_id: string; company_legal_name: string; issuer_company_id: string; tax_id: string }[];
// Revoked by the first test; every later one acts for the others.
let revoked: (typeof grants)[number];
// The kill -9 and 429 cases act for a part of the 2,000 (what they check does not grow with
// the count, and a whole run of `webhook subscribe` over 2,000 is a benchmark's length).
const KILLED = 400;
const STORM = 30;

/** The sandbox's request lines (`METHOD PATH STATUS Nms`) written while `run` ran. */
async function sandboxLines<T>(run: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  const from = sandbox.stderr().length;
  const value = await run();
  // The log line is written after the answer: let the last ones arrive.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const lines = sandbox.stderr().slice(from).split('\n').filter((l) => /^(GET|POST|PUT|PATCH|DELETE) \S+ \d{3} \d+ms$/.test(l));
  return { value, lines };
}

beforeAll(async () => {
  const fixture = await fixtureWithOwnRedirect(dirs);
  sandbox = await startSandbox(['--fixture', fixture.path, '--auto-approve', '--companies', String(COMPANIES), '--rate-limit', '1'], { timeout: 30_000 });
  home = await makeSvcHome(dirs);
  const { result } = await loginAutoApproved(home, sandbox.url, fixture);
  expect(result.exitCode, result.stderr).toBe(0);
  // Return requests are encrypted for the client application's key.
  const keys = await runSvc(['keys', 'generate', '--upload'], { home, env: { SVC_BASE_URL: sandbox.url } });
  expect(keys.exitCode, keys.stderr).toBe(0);
  proxy = await startRecordingProxy(sandbox.url);
  const listed = await runSvc(['grants', 'list', '--json'], { home, env: { SVC_BASE_URL: sandbox.url } });
  grants = JSON.parse(listed.stdout) as typeof grants;
  expect(grants).toHaveLength(COMPANIES);
  revoked = grants[1000]!;
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await sandbox?.stop();
  await dirs.cleanup();
});

describe('a platform of 2,000 companies', () => {
  it('grants list --details --all-grants, cold: a revoked Grant and a 403 in the middle are reported for themselves, the 1,998 others listed, exit 9; one token request per live Grant', async () => {
    const refused = grants[1001]!;
    const revoke = await runSvc(['sandbox', 'revoke', revoked.grant_id], { home, env: { SVC_BASE_URL: sandbox.url } });
    expect(revoke.exitCode, revoke.stderr).toBe(0);
    proxy.refuse = (method, path) => method === 'GET' && path === `/oauth2/grants/${refused.grant_id}`;
    proxy.seen = [];
    try {
      const { value: json, lines } = await sandboxLines(() => runSvc(['grants', 'list', '--details', '--all-grants', '--json'], { home, env: { SVC_BASE_URL: proxy.url } }));
      expect(json.exitCode, json.stderr).toBe(9);
      const elements = JSON.parse(json.stdout) as { grantId: string; companyId: string; stores?: unknown[]; error?: { exitCode: number } }[];
      expect(elements).toHaveLength(COMPANIES);
      expect(elements.filter((e) => e.error !== undefined).map((e) => [e.grantId, e.companyId, e.error?.exitCode])).toEqual([
        [revoked.grant_id, revoked.issuer_company_id, 4],
        [refused.grant_id, refused.issuer_company_id, 5],
      ]);
      expect(elements.filter((e) => e.stores !== undefined)).toHaveLength(COMPANIES - 2);
      expect(json.stderr).not.toContain('error:');
      // Counted at the sandbox: a token for each Grant the service still honours, none twice.
      expect(lines.filter((l) => l.startsWith('POST /oauth2/token 200'))).toHaveLength(COMPANIES - 1);
      expectNoRequestWhileHeld(proxy.seen);
    } finally {
      proxy.refuse = () => false;
    }
  });

  it('receipt send --batch spanning 50 companies issues each receipt under its own Grant, as the sandbox says', async () => {
    const env = { SVC_BASE_URL: sandbox.url };
    const chosen = grants.slice(1500, 1550);
    const template = JSON.parse(await readFile(await receiptDatedToday(dirs, 'R-2000'), 'utf8')) as { documentNumber?: string };
    // Lines name their company each in one of the selector forms: tax ID, Grant ID prefix, whole name.
    const selector = (g: (typeof grants)[number], n: number) => [g.tax_id, g.grant_id.slice(0, 12), g.company_legal_name][n % 3]!;
    const batch = `${await dirs.make('svc-batch-')}/batch.jsonl`;
    await writeFile(batch, chosen.map((g, n) => JSON.stringify({ template: { ...template, documentNumber: `R-2000-${n}` }, email: 'alice@example.com', grant: selector(g, n) })).join('\n') + '\n');
    const sent = await runSvc(['receipt', 'send', '--batch', batch], { home, env });
    expect(sent.exitCode, sent.stderr).toBe(0);
    const results = sent.stdout.trim().split('\n').map((l) => JSON.parse(l) as { line: number; serviceReceiptId: string; grantId: string });
    expect(results.map((r) => [r.line, r.grantId]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(chosen.map((g, n) => [n + 1, g.grant_id]));
    // The sandbox names the company that issued each receipt: its own comes first in a spread.
    for (const r of results) {
      const answer = await fetch(`${sandbox.url}/sandbox/return-requests/bulk`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ serviceReceiptId: r.serviceReceiptId, count: 1, companies: 1 }),
      });
      expect(answer.status).toBe(201);
      const body = (await answer.json()) as { companies: { companyId: string }[] };
      expect(body.companies[0]?.companyId, `receipt of line ${r.line}`).toBe(chosen[r.line - 1]!.issuer_company_id);
    }
  });

  it(`webhook subscribe over ${KILLED} Grants killed with SIGKILL half-way, after the service made a subscription it never heard back about: a re-run leaves exactly one per company`, async () => {
    // Around the revoked Grant, which is left out.
    const chosen = grants.slice(800, 800 + KILLED + 1).filter((g) => g !== revoked);
    const liveFile = `${await dirs.make('svc-grants-')}/live.txt`;
    await writeFile(liveFile, `${chosen.map((g) => g.grant_id).join('\n')}\n`);
    const url = 'http://127.0.0.1:9/killed';
    let posts = 0;
    const hold = await startHoldProxy(sandbox.url, { hold: (method, path) => method === 'POST' && path.split('?')[0] === '/webhook/subscription' && ++posts === KILLED / 2, when: 'after' });
    try {
      const child = execa('node', [svcBin, 'webhook', 'subscribe', '--grants', liveFile, '--url', url], { env: svcEnv(home, { SVC_BASE_URL: hold.url }), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore' });
      const ended = child.then((r) => `svc ended before it was killed (exit ${r.exitCode}):\n${r.stderr}`);
      expect(await Promise.race([hold.held.then(() => 'held'), ended])).toBe('held');
      child.kill('SIGKILL');
      expect((await child).signal).toBe('SIGKILL');
    } finally {
      await hold.close();
    }
    const env = { SVC_BASE_URL: sandbox.url };
    const rerun = await runSvc(['webhook', 'subscribe', '--grants', liveFile, '--url', url, '--json'], { home, env });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    const rows = JSON.parse(rerun.stdout) as { grantId: string; reused: boolean }[];
    expect(rows).toHaveLength(KILLED);
    // What the killed run had made and kept is reused; the one it never heard back about is handed back by its key,
    // and so are those it had made but not written yet: the fan-out writes them in batches and leaves at most
    // 16 waiting (src/webhook/subscriptions.ts MAX_UNKEPT) besides its 16 workers' requests.
    expect(rows.filter((r) => r.reused).length).toBeGreaterThanOrEqual(KILLED / 2 - 32);
    const listed = await runSvc(['webhook', 'list', '--grants', liveFile, '--json'], { home, env });
    expect(listed.exitCode, listed.stderr).toBe(0);
    const onService = (JSON.parse(listed.stdout) as { grantId: string; notificationUrl: string; onService: boolean | null; secretStored: boolean }[]).filter((s) => s.notificationUrl === url && s.onService === true);
    const perGrant = new Map<string, number>();
    for (const s of onService) perGrant.set(s.grantId, (perGrant.get(s.grantId) ?? 0) + 1);
    expect(perGrant.size).toBe(KILLED);
    expect([...perGrant.values()].every((n) => n === 1)).toBe(true);
    expect(onService.every((s) => s.secretStored)).toBe(true);
  });

  it(`a 429 storm: webhook unsubscribe --url over ${STORM} companies, 3 requests each against a burst of 2, completes, and nothing reaches the sandbox while a Retry-After holds the run`, async () => {
    const env = { SVC_BASE_URL: sandbox.url };
    const file = `${await dirs.make('svc-grants-')}/storm.txt`;
    await writeFile(file, `${grants.slice(200, 200 + STORM).map((g) => g.grant_id).join('\n')}\n`);
    const url = 'http://127.0.0.1:9/storm';
    for (const events of ['RETURN_REQUESTED', 'CREDIT_NOTE_CREATED']) {
      const subscribed = await runSvc(['webhook', 'subscribe', '--grants', file, '--url', url, '--events', events], { home, env });
      expect(subscribed.exitCode, subscribed.stderr).toBe(0);
    }
    // Every bucket full again (1 a second, 2 at most), then 3 requests per company at once: the list and two removals.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    proxy.seen = [];
    const { value: removed, lines } = await sandboxLines(() => runSvc(['webhook', 'unsubscribe', '--grants', file, '--url', url, '--json'], { home, env: { SVC_BASE_URL: proxy.url } }));
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect((JSON.parse(removed.stdout) as { grantId: string }[]).length).toBe(2 * STORM);
    expect(expectNoRequestWhileHeld(proxy.seen)).toBeGreaterThan(0);
    // The sandbox's own log agrees with what the proxy saw: every request, every 429.
    expect(lines).toHaveLength(proxy.seen.length);
    expect(lines.filter((l) => / 429 /.test(l))).toHaveLength(proxy.seen.filter((s) => s.status === 429).length);
    const listed = await runSvc(['webhook', 'list', '--grants', file, '--json'], { home, env });
    expect((JSON.parse(listed.stdout) as { notificationUrl: string }[]).filter((s) => s.notificationUrl === url)).toEqual([]);
  });
});
