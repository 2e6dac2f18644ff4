// `credit-note reject` of a request a credit note credited: refused (exit 7) in words that fit
// where the request is. Still ACCEPTED, the next step is to complete it; already COMPLETED,
// there is none, and the refusal says it is COMPLETED rather than sending the merchant to
// `complete` (which would answer that it is COMPLETED).
import { describe, expect, it } from 'vitest';
import { runSvc } from './helpers.js';
import { milkRequests, queueStatuses, useMerchant } from './merchant.js';

const { merchant } = useMerchant();

describe('reject of a credited request', () => {
  it('ACCEPTED: exit 7, "close it with complete"; COMPLETED: exit 7 saying it is COMPLETED and by which credit note; nothing moves', async () => {
    const m = merchant();
    const [open, closed] = (await milkRequests(m, 2)) as [string, string];
    await m.svc(['credit-note', 'accept', open, closed]);
    await m.svc(['credit-note', 'issue', open, '--yes']);
    await m.svc(['credit-note', 'issue', closed, '--yes', '--complete']);
    const before = await queueStatuses(m);

    const stillOpen = await runSvc(['credit-note', 'reject', open, '--yes'], { home: m.home, env: m.env });
    expect(stillOpen.exitCode, stillOpen.stderr).toBe(7);
    expect(stillOpen.stderr).toMatch(/already has credit note CN-R-2025-000871-\d+-\d+ \(issued, or being submitted\): it cannot be rejected/);
    expect(stillOpen.stderr).toContain(`close it with \`svc credit-note complete ${open}\``);

    const done = await runSvc(['credit-note', 'reject', closed, '--yes'], { home: m.home, env: m.env });
    expect(done.exitCode, done.stderr).toBe(7);
    expect(done.stderr).toMatch(new RegExp(`return request ${closed} is COMPLETED, credited by credit note CN-R-2025-000871-\\d+-\\d+: it cannot be moved again`));
    expect(done.stderr).not.toContain('close it with');
    expect(done.stderr).toContain(`svc credit-note show ${closed}`);

    expect(await queueStatuses(m)).toEqual(before);
    expect(before.get(open)).toBe('ACCEPTED');
    expect(before.get(closed)).toBe('COMPLETED');
  }, 60_000);
});
