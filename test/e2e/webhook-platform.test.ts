// Webhooks for a platform (issue 25 item 4) on the built binary against a sandbox of many
// companies: a subscription belongs to its Grant (the same URL under a second Grant is a
// subscription of its own), `--own-path` gives each Grant's subscription a path of its own
// under the listener's URL, and `webhook listen` checks a delivery to such a path against
// that subscription's secret only, naming the company on every line.
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runSvc, svcBin, svcEnv, tempDirs } from './helpers.js';
import { startMerchant, type Merchant } from './merchant.js';
import { freeLoopbackPort } from '../../src/net-port.js';

const COMPANIES = 4;
const dirs = tempDirs();
let m: Merchant;
let grants: { grant_id: string; issuer_company_id: string; company_legal_name: string }[];

beforeAll(async () => {
  m = await startMerchant(dirs, ['--companies', String(COMPANIES)]);
  grants = await m.json(['grants', 'list']);
});
afterAll(async () => {
  await m?.sandbox.stop();
  await dirs.cleanup();
});

const underGrant = (grant: string, args: string[]) => runSvc([...args, '--json'], { home: m.home, env: { ...m.env, SVC_GRANT_ID: grant } });

describe('webhook subscriptions of several Grants', () => {
  it('`subscribe --url U` under a second Grant creates that Grant\'s own subscription; a re-run under each reuses its own', async () => {
    const url = 'http://127.0.0.1:9/reuse-by-grant';
    const [first, second] = [grants[0]!.grant_id, grants[1]!.grant_id];
    const a = await underGrant(first, ['webhook', 'subscribe', '--url', url]);
    expect(a.exitCode, a.stderr).toBe(0);
    const b = await underGrant(second, ['webhook', 'subscribe', '--url', url]);
    expect(b.exitCode, b.stderr).toBe(0);
    const [idA, idB] = [JSON.parse(a.stdout).id, JSON.parse(b.stdout).id];
    expect(idB).not.toBe(idA);
    const again = await underGrant(second, ['webhook', 'subscribe', '--url', url]);
    expect(JSON.parse(again.stdout).id).toBe(idB);
    // The service agrees: each company has exactly one subscription to U.
    for (const grant of [first, second]) {
      const listed = await runSvc(['api', 'GET', '/webhook/subscription'], { home: m.home, env: { ...m.env, SVC_GRANT_ID: grant } });
      expect(listed.exitCode, listed.stderr).toBe(0);
      expect((JSON.parse(listed.stdout) as { notificationUrl: string }[]).filter((s) => s.notificationUrl === url)).toHaveLength(1);
    }
  });
});

describe('webhook list of one company', () => {
  it('lists the company it asked the service about, each subscription listed; the other companies\' kept here are counted as not checked, never "not listed"; --grant likewise', async () => {
    const url = `http://127.0.0.1:${await freeLoopbackPort()}/list-one`;
    const subscribed = await runSvc(['webhook', 'subscribe', '--all-grants', '--url', url, '--own-path', '--json'], { home: m.home, env: m.env });
    expect(subscribed.exitCode, subscribed.stderr).toBe(0);
    type Row = { id: string; notificationUrl: string; onService: boolean | null; grantId?: string; companyId?: string };
    const mine = (rows: Row[]) => rows.filter((r) => r.notificationUrl.startsWith(`${url}/g`));
    const defaultList = await runSvc(['webhook', 'list', '--json'], { home: m.home, env: m.env });
    expect(defaultList.exitCode, defaultList.stderr).toBe(0);
    // All of them are on the service: none may be said not to be.
    expect((JSON.parse(defaultList.stdout) as Row[]).filter((r) => r.onService === false)).toEqual([]);
    expect(mine(JSON.parse(defaultList.stdout) as Row[])).toEqual([expect.objectContaining({ onService: true, grantId: grants[0]!.grant_id, companyId: grants[0]!.issuer_company_id })]);
    expect(defaultList.stderr).toMatch(new RegExp(`subscriptions of ${grants[0]!.company_legal_name} \\(\\S+\\) only: this machine keeps \\d+ more subscriptions of ${COMPANIES - 1} other companies, not checked with the service \\(\`svc webhook list --all-grants\` checks`));

    const other = grants[2]!;
    const chosen = await runSvc(['webhook', 'list', '--grant', other.grant_id, '--json'], { home: m.home, env: m.env });
    expect(chosen.exitCode, chosen.stderr).toBe(0);
    expect((JSON.parse(chosen.stdout) as Row[]).filter((r) => r.onService === false)).toEqual([]);
    expect(mine(JSON.parse(chosen.stdout) as Row[])).toEqual([expect.objectContaining({ onService: true, grantId: other.grant_id, companyId: other.issuer_company_id })]);
    expect(chosen.stderr).toContain(`subscriptions of ${other.company_legal_name}`);

    // The table a person reads: no "not listed" for a subscription the service was not asked about.
    const table = await runSvc(['webhook', 'list'], { home: m.home, env: m.env });
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).not.toContain('not listed');
    expect(table.stdout.split('\n').filter((l) => l.includes(`${url}/g`))).toHaveLength(1);
  }, 60_000);
});

describe('webhook listen with a path of its own per Grant', () => {
  it('routes each delivery to its subscription\'s secret, names the company, and refuses another company\'s signature on that path', async () => {
    // Subscribed before the listener starts (on a port chosen now), so it knows only these secrets.
    const url = `http://127.0.0.1:${await freeLoopbackPort()}/webhooks`;
    const subscribed = await runSvc(['webhook', 'subscribe', '--all-grants', '--url', url, '--own-path', '--events', 'RETURN_REQUESTED', '--json'], { home: m.home, env: m.env });
    expect(subscribed.exitCode, subscribed.stderr).toBe(0);
    const rows = JSON.parse(subscribed.stdout) as { id: string; notificationUrl: string; companyId: string }[];
    expect(rows).toHaveLength(COMPANIES);
    // One path per company, below the listener's.
    expect(new Set(rows.map((r) => r.notificationUrl)).size).toBe(COMPANIES);
    for (const r of rows) expect(r.notificationUrl).toMatch(new RegExp(`^${url}/g[0-9a-f]{24}$`));
    // A re-run creates none.
    const rerun = await runSvc(['webhook', 'subscribe', '--all-grants', '--url', url, '--own-path', '--events', 'RETURN_REQUESTED', '--json'], { home: m.home, env: m.env });
    expect((JSON.parse(rerun.stdout) as { reused: boolean }[]).every((r) => r.reused)).toBe(true);

    const child = execa('node', [svcBin, 'webhook', 'listen', '--port', new URL(url).port, '--json'], { env: svcEnv(m.home, m.env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore', forceKillAfterDelay: 5_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const until = async (seen: () => boolean, what: string) => {
      for (const deadline = Date.now() + 30_000; !seen(); ) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${what}:\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    try {
      await until(() => /listening on http:\/\/\S+/.test(stderr), 'listening line');
      const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
      const spread = await m.json<{ requestIds: string[] }>(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--companies', String(COMPANIES), '--item', '4001234567890:1']);
      const events = () =>
        stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { event?: string; verified?: boolean; companyId?: string; requestId?: string; error?: string; rejected?: boolean });
      await until(() => events().filter((e) => e.event === 'RETURN_REQUESTED').length >= COMPANIES, `${COMPANIES} RETURN_REQUESTED`);
      const returned = events().filter((e) => e.event === 'RETURN_REQUESTED');
      expect(returned.every((e) => e.verified && e.error === undefined), stderr).toBe(true);
      expect(new Set(returned.map((e) => e.companyId))).toEqual(new Set(grants.map((g) => g.issuer_company_id)));
      // Each event names its request, found in its own company's queue (only the default Grant's before).
      expect(returned.map((e) => e.requestId).sort(), stderr).toEqual([...spread.requestIds].sort());
      // The human lines name the company.
      expect(stderr).toContain(`company ${grants.at(-1)!.company_legal_name}`);

      // On company A's path only A's secret counts: B's signature is refused with one secret tried.
      const secrets = JSON.parse(await readFile(join(m.home.configDir, 'secrets.json'), 'utf8')) as Record<string, string>;
      const [a, b] = [rows[0]!, rows[1]!];
      const body = JSON.stringify({ event: 'RETURN_REQUESTED', data: {} });
      const t = Math.floor(Date.now() / 1000);
      const sign = (secret: string) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
      const post = (to: string, secret: string) => fetch(to, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': sign(secret) }, body });
      const refused = await post(a.notificationUrl, secrets[`local/webhook-secret/${b.id}`]!);
      expect(refused.status).toBe(400);
      await until(() => /no secret matched \(1 secret tried\)/.test(stderr), 'the refusal naming one secret tried');
      expect((await post(a.notificationUrl, secrets[`local/webhook-secret/${a.id}`]!)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await child;
    }
  }, 180_000);
});

describe('webhook subscribe --all-grants after a new login', () => {
  it('a login that replaced every Grant (new IDs) reuses each company\'s subscription the service still lists: none made again', async () => {
    const url = `http://127.0.0.1:${await freeLoopbackPort()}/relogin`;
    const first = await runSvc(['webhook', 'subscribe', '--all-grants', '--url', url, '--json'], { home: m.home, env: m.env });
    expect(first.exitCode, first.stderr).toBe(0);
    const before = (await m.json<{ grant_id: string }[]>(['grants', 'list'])).map((g) => g.grant_id);
    await m.svc(['sandbox', 'login']);
    const after = (await m.json<{ grant_id: string }[]>(['grants', 'list'])).map((g) => g.grant_id);
    expect(after.filter((id) => before.includes(id))).toEqual([]);

    const again = await runSvc(['webhook', 'subscribe', '--all-grants', '--url', url, '--json'], { home: m.home, env: m.env });
    expect(again.exitCode, again.stderr).toBe(0);
    const rows = JSON.parse(again.stdout) as { id: string; reused: boolean }[];
    expect(rows.map((r) => r.reused)).toEqual(after.map(() => true));
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set((JSON.parse(first.stdout) as { id: string }[]).map((r) => r.id)));
    const listed = await m.json<{ id: string; grantId: string | null; notificationUrl: string; onService: boolean | null }[]>(['webhook', 'list', '--all-grants']);
    expect(listed.filter((s) => s.notificationUrl === url && s.onService === true)).toHaveLength(COMPANIES);
  }, 120_000);
});


describe('webhook subscribe --all-grants --own-path after a new login', () => {
  it('reuses each company\'s subscription under its path of its own (derived from the old Grant ID), moved to the new Grant: none made again', async () => {
    const url = `http://127.0.0.1:${await freeLoopbackPort()}/relogin-own`;
    const args = ['webhook', 'subscribe', '--all-grants', '--url', url, '--own-path', '--json'];
    const first = await runSvc(args, { home: m.home, env: m.env });
    expect(first.exitCode, first.stderr).toBe(0);
    const before = (await m.json<{ grant_id: string }[]>(['grants', 'list'])).map((g) => g.grant_id);
    await m.svc(['sandbox', 'login']);
    const after = (await m.json<{ grant_id: string }[]>(['grants', 'list'])).map((g) => g.grant_id);
    expect(after.filter((id) => before.includes(id))).toEqual([]);

    const again = await runSvc(args, { home: m.home, env: m.env });
    expect(again.exitCode, again.stderr).toBe(0);
    const rows = JSON.parse(again.stdout) as { id: string; reused: boolean }[];
    expect(rows.map((r) => r.reused)).toEqual(after.map(() => true));
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set((JSON.parse(first.stdout) as { id: string }[]).map((r) => r.id)));
    // Once moved, a third run finds them under the new Grants as they are.
    const third = await runSvc(args, { home: m.home, env: m.env });
    expect((JSON.parse(third.stdout) as { reused: boolean }[]).every((r) => r.reused), third.stderr).toBe(true);
    const listed = await m.json<{ id: string; notificationUrl: string; onService: boolean | null }[]>(['webhook', 'list', '--all-grants']);
    expect(listed.filter((s) => s.notificationUrl.startsWith(`${url}/g`) && s.onService === true)).toHaveLength(COMPANIES);
    // And `unsubscribe --all-grants --url U` still finds each under its old path.
    const gone = await runSvc(['webhook', 'unsubscribe', '--all-grants', '--url', url, '--json'], { home: m.home, env: m.env });
    expect(gone.exitCode, gone.stderr).toBe(0);
    expect(JSON.parse(gone.stdout) as unknown[]).toHaveLength(COMPANIES);
  }, 180_000);
});
