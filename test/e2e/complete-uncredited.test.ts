// `credit-note complete` closes a request for good: one with no credit note issued for it (none
// in the ledger) would leave the customer never credited, so it is refused unless
// --credited-elsewhere says the customer was credited another way.
import { describe, expect, it } from 'vitest';
import { runSvc } from './helpers.js';
import { milkRequests, queueStatuses, useMerchant } from './merchant.js';

const { merchant } = useMerchant();
const run = (args: string[]) => runSvc(args, { home: merchant().home, env: merchant().env });

describe('credit-note complete without a credit note', () => {
  it('refuses an accepted request never credited (exit 2, naming it and `issue`), moves nothing; --credited-elsewhere completes it', async () => {
    const [credited, uncredited] = await milkRequests(merchant(), 2);
    await merchant().svc(['credit-note', 'accept', credited!, uncredited!]);
    const issued = await run(['credit-note', 'issue', credited!, '--yes']);
    expect(issued.exitCode, issued.stderr).toBe(0);

    const refused = await run(['credit-note', 'complete', '--yes', credited!, uncredited!]);
    expect(refused.exitCode, refused.stderr).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`return request ${uncredited} has no credit note issued`);
    expect(refused.stderr).toContain(`svc credit-note issue ${uncredited}`);
    expect(refused.stderr).toContain('--credited-elsewhere');
    const statuses = await queueStatuses(merchant());
    expect([statuses.get(credited!), statuses.get(uncredited!)]).toEqual(['ACCEPTED', 'ACCEPTED']);

    const viaStatus = await run(['credit-note', 'status', uncredited!, 'COMPLETED', '--yes']);
    expect(viaStatus.exitCode, viaStatus.stderr).toBe(2);

    const done = await run(['credit-note', 'complete', '--yes', credited!]);
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stdout).toBe(`${credited} COMPLETED\n`);
    const elsewhere = await run(['credit-note', 'complete', '--yes', '--credited-elsewhere', uncredited!]);
    expect(elsewhere.exitCode, elsewhere.stderr).toBe(0);
    expect(elsewhere.stdout).toBe(`${uncredited} COMPLETED\n`);
  });

  it('when `issue` would refuse the request too (all of it credited already), says so instead of sending the person to it', async () => {
    const m = merchant();
    // Milk bought twice: two requests credited take it all; the third asks for what is not left.
    const [a, b, c] = (await milkRequests(m, 3)) as [string, string, string];
    await m.svc(['credit-note', 'accept', a, b, c]);
    await m.svc(['credit-note', 'issue', a, '--yes']);
    await m.svc(['credit-note', 'issue', b, '--yes']);
    const refused = await run(['credit-note', 'complete', '--yes', c]);
    expect(refused.exitCode, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`hint: nothing was completed; \`svc credit-note issue ${c}\` would refuse it \\(lineItems\\.0 \\(productId 4001234567890\\): quantity 1 is more than the 0 that can still be returned`));
    expect(refused.stderr).not.toContain('credit the customer first');
    // The way it does name works.
    expect(refused.stderr).toContain('--credited-elsewhere');
    const elsewhere = await run(['credit-note', 'complete', '--yes', '--credited-elsewhere', c]);
    expect(elsewhere.exitCode, elsewhere.stderr).toBe(0);
  });
});
