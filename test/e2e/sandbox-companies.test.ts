// `svc sandbox start --companies N`: a platform's world in the sandbox. One login stores a
// Grant per company (deterministic IDs, names, tax IDs, stores), and the return-request
// triggers spread over those companies, each seeing only its own.
import { describe, expect, it } from 'vitest';
import { runSvc, svcEnv } from './helpers.js';
import { useMerchant, type PolledItem } from './merchant.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const COMPANIES = 50;

interface StoredGrant {
  grant_id: string;
  issuer_company_id: string;
  company_legal_name: string;
  tax_id: string;
}

describe('sandbox start --companies', () => {
  const { merchant } = useMerchant(['--companies', String(COMPANIES)]);

  it('a login of many companies shows the first ones on a terminal and how to see them all; a pipe gets every one', async (ctx) => {
    const m = merchant();
    const piped = await runSvc(['sandbox', 'login'], { home: m.home, env: m.env });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stdout.trim().split('\n')).toHaveLength(COMPANIES);
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const term = svcInTerminal('svc-login-many', ['sandbox', 'login'], svcEnv(m.home, m.env), [100, 60]);
    try {
      await term.waitFor('SVC-EXIT=0', 'sandbox login');
      const text = term.text();
      expect(text).toContain(`logged in to profile "local": ${COMPANIES} Grants`);
      // 19 rows and the line that says how many more and where they are: not 50 lines scrolling by.
      expect(text).toContain(`… ${COMPANIES - 19} more (every one: \`svc grants list\`)`);
      // At 100 columns SCOPES is left out, so the Grant IDs are at their 8-character prefix.
      expect(text.split('\n').filter((l) => /^[0-9a-f]{8}  /.test(l)).length).toBe(19);
      expect(text).toContain('not shown: SCOPES');
    } finally {
      term.kill();
    }
  });

  it('one login stores a Grant for each of the N companies, with deterministic names and tax IDs', async () => {
    const grants = await merchant().json<StoredGrant[]>(['grants', 'list']);
    expect(grants).toHaveLength(COMPANIES);
    const byCompany = new Map(grants.map((g) => [g.issuer_company_id, g]));
    // The fixture's two companies first, then the generated ones.
    expect(byCompany.get('c0000000-0000-4000-8000-000000000001')?.company_legal_name).toBe('Example Retail Ltd');
    expect(byCompany.get('c0000000-0000-4000-a000-000000000037')).toMatchObject({ company_legal_name: 'Platform Shop 00037 GmbH', tax_id: 'EU900000037' });
    expect(new Set(grants.map((g) => g.tax_id)).size).toBe(COMPANIES);
  });

  it("a generated company's Grant has its own two stores", async () => {
    const m = merchant();
    const grants = await m.json<StoredGrant[]>(['grants', 'list']);
    const shop = grants.find((g) => g.issuer_company_id === 'c0000000-0000-4000-a000-000000000037');
    const details = await m.json<{ stores: { id: string; storeCode: string }[] }>(['grants', 'show', shop!.grant_id]);
    expect(details.stores.map((s) => s.storeCode)).toEqual(['PS00037-1', 'PS00037-2']);
  });

  it('trigger return-request --companies N puts one request in each of N companies, each seeing only its own', async () => {
    const m = merchant();
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const spread = await m.json<{ requestIds: string[]; companies: { companyId: string; count: number }[] }>([
      'sandbox', 'trigger', 'return-request', serviceReceiptId, '--companies', '5', '--item', '4001234567890:1',
    ]);
    expect(spread.requestIds).toHaveLength(5);
    expect(spread.companies.map((c) => c.count)).toEqual([1, 1, 1, 1, 1]);
    expect(new Set(spread.companies.map((c) => c.companyId)).size).toBe(5);

    const grants = await m.json<StoredGrant[]>(['grants', 'list']);
    const seen: string[] = [];
    for (const { companyId } of spread.companies) {
      const grant = grants.find((g) => g.issuer_company_id === companyId)!;
      const polled = await runSvc(['credit-note', 'poll', '--all', '--json'], { home: m.home, env: { ...m.env, SVC_GRANT_ID: grant.grant_id } });
      expect(polled.exitCode, polled.stderr).toBe(0);
      const own = (JSON.parse(polled.stdout) as PolledItem[]).filter((q) => spread.requestIds.includes(q.requestId));
      expect(own).toHaveLength(1);
      expect(own[0]?.returnRequest?.lineItems).toEqual([expect.objectContaining({ productId: '4001234567890', quantity: 1 })]);
      seen.push(own[0]!.requestId);
    }
    expect(seen.sort()).toEqual([...spread.requestIds].sort());

    // --count with --companies: that many, dealt out over them in turn (was: --count dropped, one each).
    const dealt = await m.json<{ requestIds: string[]; companies: { companyId: string; count: number }[] }>([
      'sandbox', 'trigger', 'return-request', serviceReceiptId, '--companies', '3', '--count', '7', '--item', '4001234567890:1',
    ]);
    expect(dealt.requestIds).toHaveLength(7);
    expect(dealt.companies.map((c) => c.count)).toEqual([3, 2, 2]);

    // Fewer requests than companies: the count line says how many companies got one, read back
    // from what the sandbox made (was: "4 return requests in 10 companies").
    const fewer = await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--companies', '10', '--count', '4', '--item', '4001234567890:1']);
    expect(fewer.stdout.trim().split('\n')).toHaveLength(4);
    expect(fewer.stderr).toContain('4 return requests in 4 companies (one each: --count 4 is fewer than --companies 10);');
    const many = await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--companies', '3', '--count', '7', '--item', '4001234567890:1']);
    expect(many.stderr).toContain('7 return requests in 3 companies;');
  });

  it('the bulk trigger spreads its count over companies in turn, and refuses more companies than granted', async () => {
    const m = merchant();
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const bulk = (body: object) =>
      fetch(`${m.sandbox.url}/sandbox/return-requests/bulk`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ serviceReceiptId, ...body }) });
    const answer = await bulk({ count: 25, companies: 10 });
    expect(answer.status).toBe(201);
    const result = (await answer.json()) as { count: number; companies: { count: number }[] };
    expect(result.count).toBe(25);
    expect(result.companies.map((c) => c.count)).toEqual([3, 3, 3, 3, 3, 2, 2, 2, 2, 2]);
    const tooMany = await bulk({ count: 1, companies: COMPANIES + 1 });
    expect(tooMany.status).toBe(400);
    expect(await tooMany.json()).toMatchObject({ error: 'validation_failed' });
  });
});
