// Choosing the company a command acts for (issue 25 item 1): `--grant` takes a Grant ID or a
// unique prefix, a company's tax ID, or a unique part of its legal name, on every verb that
// acts for a company; an ambiguous one exits 2 naming the candidates with their companies.
// A request polled under one Grant is remembered with it, so `show`/`accept` need no --grant.
import { describe, expect, it } from 'vitest';
import { runSvc } from './helpers.js';
import { useMerchant, type PolledItem } from './merchant.js';

const { merchant } = useMerchant();

interface GrantRow {
  grant_id: string;
  company_legal_name: string;
  tax_id: string;
}

describe('--grant SELECTOR', () => {
  it('by tax ID, ID prefix and name part: a receipt and its return under the second company only; show and accept then find its Grant', async () => {
    const m = merchant();
    const grants = await m.json<GrantRow[]>(['grants', 'list']);
    const foods = grants.find((g) => g.company_legal_name === 'Sample Foods GmbH')!;
    const retail = grants.find((g) => g.company_legal_name === 'Example Retail Ltd')!;
    expect(foods && retail).toBeTruthy();

    // Issued for Sample Foods (by its tax ID), while the profile's default is Example Retail.
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--grant', foods.tax_id, '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const requestId = (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1'])).stdout.trim();
    // What a person reads names the company acted for.
    const sent = await m.svc(['receipt', 'send', '--grant', foods.tax_id, '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    expect(sent.stderr).toMatch(/issued to \d+ devices? of email alice@example\.com for Sample Foods GmbH; recorded in the ledger/);
    // The receipt is remembered with its company: resolving its owner needs no --grant, while
    // the default company is told it does not exist (404, as for any object of another company).
    expect((await m.json<{ recipients: unknown[] }>(['recipient', 'resolve', '--receipt', serviceReceiptId])).recipients.length).toBeGreaterThan(0);
    expect((await runSvc(['recipient', 'resolve', '--receipt', serviceReceiptId, '--grant', retail.tax_id], { home: m.home, env: m.env })).exitCode).toBe(6);

    const ids = async (args: string[]) => (await m.json<PolledItem[]>(['credit-note', 'poll', ...args])).map((q) => q.requestId);
    expect(await ids(['--grant', foods.grant_id.slice(0, 8)])).toContain(requestId);
    expect(await ids(['--grant', 'FOODS'])).toContain(requestId);
    expect(await ids(['--grant', retail.tax_id])).not.toContain(requestId);

    // Polled under Sample Foods: remembered with it, so no --grant is needed (the default Grant would answer 404).
    const shown = await m.json<{ requestId: string }>(['credit-note', 'show', requestId.slice(0, 8)]);
    expect(shown.requestId).toBe(requestId);
    expect((await m.svc(['credit-note', 'show', requestId.slice(0, 8)])).stdout).toMatch(/^company +Sample Foods GmbH$/m);
    expect((await m.svc(['credit-note', 'accept', requestId])).stdout).toBe(`${requestId} ACCEPTED\n`);
    // The credit note names the company it was issued for, as the receipt did (a document number recurs across companies).
    const issued = await m.svc(['credit-note', 'issue', requestId, '--yes']);
    expect(issued.stderr).toMatch(/issued to \d+ devices? for Sample Foods GmbH; recorded in the ledger/);

    // The same selectors for `token get` and `grants use`.
    const token = await m.json<{ grant_id: string }>(['token', 'get', '--grant', 'sample foods']);
    expect(token.grant_id).toBe(foods.grant_id);
    const used = await m.svc(['grants', 'use', 'retail']);
    expect(used.stderr).toContain(`Grant ${retail.grant_id} (Example Retail Ltd) is now the default`);
    expect((await m.json<{ grant_id: string }>(['token', 'get'])).grant_id).toBe(retail.grant_id);
  });

  it('ambiguous: exit 2 naming each candidate with its company; fitting nothing: exit 6', async () => {
    const m = merchant();
    const ambiguous = await runSvc(['credit-note', 'poll', '--grant', 'l'], { home: m.home, env: m.env });
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.stderr).toContain('"l" (--grant) fits 2 companies');
    expect(ambiguous.stderr).toMatch(/ {2}\S+ {2}Example Retail Ltd \(EU000000001\)/);
    expect(ambiguous.stderr).toMatch(/ {2}\S+ {2}Sample Foods GmbH \(EU000000002\)/);
    const json = await runSvc(['webhook', 'list', '--grant', 'l', '--json'], { home: m.home, env: m.env });
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'usage', exitCode: 2 } });

    const none = await runSvc(['recipient', 'resolve', '--grant', 'acme', '--email', 'alice@example.com'], { home: m.home, env: m.env });
    expect(none.exitCode).toBe(6);
    expect(none.stderr).toContain('no Grant of this profile fits "acme" (--grant)');
  });

  it('a Grant ID this client does not have: said so (never existed, revoked, or a sandbox reset), exit 4, not a sandbox restart; its hints work', async () => {
    const m = merchant();
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const args of [['credit-note', 'poll', '--grant', unknown], ['api', 'GET', `/oauth2/grants/${unknown}`]]) {
      const run = await runSvc(args, { home: m.home, env: m.env });
      expect(run.exitCode, run.stderr).toBe(4);
      expect(run.stderr).toContain(`error: this client has no Grant ${unknown}`);
      expect(run.stderr).toMatch(/never existed.*revoked.*restarted or reset/);
      expect(run.stderr).not.toMatch(/no longer knows|restarted without --state|holds data only since/);
      expect(run.stderr).toContain('`svc grants list`');
      expect(run.stderr).toContain('`svc sandbox login`');
    }
    // Followed literally, the first hint lists the Grants the profile has.
    const listed = await runSvc(['grants', 'list'], { home: m.home, env: m.env });
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toContain('Example Retail Ltd');
  });

  it('completion offers the Grants with their companies', async () => {
    const m = merchant();
    const offered = await runSvc(['__complete', '--', 'credit-note poll', '--grant'], { home: m.home, env: m.env });
    expect(offered.exitCode).toBe(0);
    expect(offered.stdout).toMatch(/^\S+\tExample Retail Ltd$/m);
    expect(offered.stdout).toMatch(/^\S+\tSample Foods GmbH$/m);
  });
});
