// A platform issues receipts for many companies, each numbering its own: company B's receipt
// R-1 is not company A's receipt R-1. The ledger once keyed a receipt by its number alone,
// so B's send was answered with A's receipt ("already issued as …; nothing was sent again"),
// B's customer got nothing, and A's receipt was remembered as found under B's Grant.
import { describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { makeSvcHome, runSvc } from './helpers.js';
import { useMerchant } from './merchant.js';
import { loginAutoApproved } from './oauth-fixture.js';

interface StoredGrant {
  grant_id: string;
  issuer_company_id: string;
  company_legal_name: string;
}

describe('receipt send for several companies under one document number', () => {
  const { merchant, dirs } = useMerchant(['--companies', '3']);

  it('each company gets its own receipt; a re-run under either Grant reports that company\'s receipt, sends nothing', async () => {
    const m = merchant();
    const grants = await m.json<StoredGrant[]>(['grants', 'list']);
    const [a, b] = [grants[1]!, grants[2]!];
    const file = await m.newReceiptFile();
    const send = async (grant: string) => m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', file, '--email', 'alice@example.com', '--grant', grant]);

    const first = await send(a.grant_id);
    const second = await send(b.grant_id);
    expect(second.serviceReceiptId).not.toBe(first.serviceReceiptId);

    // The service files each receipt under the company that issued it: a return lands in its queue.
    const trigger = await m.svc(['sandbox', 'trigger', 'return-request', second.serviceReceiptId, '--item', '4001234567890:1']);
    const requestId = trigger.stdout.trim();
    const queue = await m.json<{ requestId: string }[]>(['credit-note', 'poll', '--no-decrypt', '--grant', b.grant_id]);
    expect(queue.map((q) => q.requestId)).toContain(requestId);

    for (const [grant, expected] of [[a.grant_id, first], [b.grant_id, second]] as const) {
      const again = await runSvc(['receipt', 'send', '--file', file, '--email', 'alice@example.com', '--grant', grant, '--json'], { home: m.home, env: m.env });
      expect(again.exitCode, again.stderr).toBe(0);
      expect((JSON.parse(again.stdout) as { serviceReceiptId: string }).serviceReceiptId).toBe(expected.serviceReceiptId);
      expect(again.stderr).toContain('nothing was sent again');
    }
  });

  it('receipt list names the company of each receipt when there are several (last column, piped)', async () => {
    const m = merchant();
    const grants = await m.json<StoredGrant[]>(['grants', 'list']);
    const [a, b] = [grants[1]!, grants[2]!];
    const file = await m.newReceiptFile();
    const number = (JSON.parse(await readFile(file, 'utf8')) as { documentNumber: string }).documentNumber;
    for (const g of [a, b]) await m.svc(['receipt', 'send', '--file', file, '--email', 'alice@example.com', '--grant', g.grant_id]);
    const listed = await m.svc(['receipt', 'list']);
    const rows = listed.stdout.trim().split('\n').map((l) => l.split('\t')).filter((cells) => cells[1] === number);
    expect(rows.map((cells) => cells.at(-1)).sort()).toEqual([a.company_legal_name, b.company_legal_name].sort());
    expect(rows.every((cells) => cells.length === 6)).toBe(true);
  });

  it('receipt send --batch: two lines with one number for two companies are two receipts', async () => {
    const m = merchant();
    const grants = await m.json<StoredGrant[]>(['grants', 'list']);
    const template = JSON.parse(await readFile(await m.newReceiptFile(), 'utf8')) as unknown;
    const batch = `${m.home.configDir}/batch.jsonl`;
    await writeFile(batch, `${[grants[0]!, grants[2]!].map((g) => JSON.stringify({ template, email: 'alice@example.com', grant: g.grant_id })).join('\n')}\n`);
    const sent = await runSvc(['receipt', 'send', '--batch', batch, '--concurrency', '1'], { home: m.home, env: m.env });
    expect(sent.exitCode, sent.stderr).toBe(0);
    const ids = sent.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { serviceReceiptId: string }).serviceReceiptId);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  });

  it('a receipt recorded under its number alone (an API key, or an svc before receipts were kept per company) is still that company\'s after a login', async () => {
    const m = merchant();
    const seed = JSON.parse(await readFile(m.fixture.path, 'utf8')) as { companies: { id: string; apiKey: string }[] };
    const home = await makeSvcHome(dirs);
    const file = await m.newReceiptFile();
    const args = ['receipt', 'send', '--file', file, '--email', 'alice@example.com', '--json'];
    const byKey = await runSvc(args, { home, env: { ...m.env, SVC_API_KEY: seed.companies[0]!.apiKey } });
    expect(byKey.exitCode, byKey.stderr).toBe(0);
    const { result } = await loginAutoApproved(home, m.sandbox.url, m.fixture);
    expect(result.exitCode, result.stderr).toBe(0);
    const again = await runSvc([...args, '--grant', 'EU000000001'], { home, env: m.env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ serviceReceiptId: (JSON.parse(byKey.stdout) as { serviceReceiptId: string }).serviceReceiptId });
    expect(again.stderr).toContain('nothing was sent again');
  });

  it("the other way round: a receipt sent with the profile's Grant, then by a caller whose company is known only from the template (an API key, a CI's SVC_GRANT_ID): the same receipt, nothing sent", async () => {
    const m = merchant();
    const seed = JSON.parse(await readFile(m.fixture.path, 'utf8')) as { companies: { id: string; apiKey: string }[] };
    const home = await makeSvcHome(dirs);
    const { result } = await loginAutoApproved(home, m.sandbox.url, m.fixture);
    expect(result.exitCode, result.stderr).toBe(0);
    const file = await m.newReceiptFile();
    const args = ['receipt', 'send', '--file', file, '--email', 'alice@example.com', '--json'];
    const byGrant = await runSvc([...args, '--grant', 'EU000000001'], { home, env: m.env });
    expect(byGrant.exitCode, byGrant.stderr).toBe(0);
    // Before, this looked under the number alone, missed the receipt kept under its company's
    // number, and ended exit 7 ("number taken") instead of reporting it.
    // Another configuration (no login: the key is what it acts with) on the same ledger, as a CI job sharing a team's.
    const ci = { configDir: (await makeSvcHome(dirs)).configDir, stateDir: home.stateDir };
    const byKey = await runSvc(args, { home: ci, env: { ...m.env, SVC_API_KEY: seed.companies[0]!.apiKey } });
    expect(byKey.exitCode, byKey.stderr).toBe(0);
    expect(JSON.parse(byKey.stdout)).toMatchObject({ serviceReceiptId: (JSON.parse(byGrant.stdout) as { serviceReceiptId: string }).serviceReceiptId });
    expect(byKey.stderr).toContain('nothing was sent again');
  });
});
