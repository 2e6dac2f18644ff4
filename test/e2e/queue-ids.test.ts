// The queue as people work it: request IDs by a unique prefix wherever one is taken, several
// IDs at once for accept/reject/complete (each reported), and a too-short prefix refused.
import { describe, expect, it } from 'vitest';
import { runSvc } from './helpers.js';
import { useMerchant } from './merchant.js';

const { merchant } = useMerchant();

describe('request IDs as people type them', () => {
  it('show by a prefix; accept two by prefixes; complete both at once; a 4-character prefix is refused', async () => {
    const m = merchant();
    const requests: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
      requests.push((await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1'])).stdout.trim());
    }
    const [a, b] = requests as [string, string];
    const shown = await m.svc(['credit-note', 'show', a.slice(0, 8)]);
    expect(shown.stdout).toContain(a);

    const accepted = await m.svc(['credit-note', 'accept', a.slice(0, 10), b.slice(0, 10)]);
    expect(accepted.stdout).toBe(`${a} ACCEPTED\n${b} ACCEPTED\n`);
    const completed = await m.json<{ requestId: string; status: string }[]>(['credit-note', 'complete', '--yes', '--credited-elsewhere', a, b.slice(0, 12)]);
    expect(completed.map((r) => [r.requestId, r.status])).toEqual([[a, 'COMPLETED'], [b, 'COMPLETED']]);

    // The default view is the open work; --all and --status show closed requests too; --receipt narrows.
    const ids = async (args: string[]) => (await m.json<{ requestId: string; serviceReceiptId: string }[]>(['credit-note', 'poll', ...args])).map((q) => q.requestId);
    expect(await ids([])).not.toContain(a);
    expect(await ids(['--all'])).toEqual(expect.arrayContaining([a, b]));
    expect(await ids(['--status', 'completed,rejected'])).toEqual(expect.arrayContaining([a, b]));
    expect(await ids(['--status', 'PENDING', '--status', 'COMPLETED'])).toEqual(expect.arrayContaining([a, b]));
    const receiptOfA = (await m.json<{ requestId: string; serviceReceiptId: string }[]>(['credit-note', 'poll', '--all'])).find((q) => q.requestId === a)!.serviceReceiptId;
    expect(await ids(['--all', '--receipt', receiptOfA.slice(0, 8)])).toEqual([a]);
    expect(await ids(['--all', '--newer-than', '1h'])).toEqual(expect.arrayContaining([a, b]));
    expect(await ids(['--all', '--older-than', '1h'])).toEqual([]);
    const both = await runSvc(['credit-note', 'poll', '--all', '--status', 'PENDING'], { home: m.home, env: m.env });
    expect(both.exitCode).toBe(2);

    const short = await runSvc(['credit-note', 'show', a.slice(0, 4)], { home: m.home, env: m.env });
    expect(short.exitCode).toBe(2);
    expect(short.stderr).toContain('is too short');

    // A final move off a terminal needs --yes: exit 2 naming it, nothing moved.
    const unasked = await runSvc(['credit-note', 'reject', a], { home: m.home, env: m.env });
    expect(unasked.exitCode).toBe(2);
    expect(unasked.stderr).toContain('needs --yes');

    // Several fail, each is reported; none moved, for different reasons (a conflict, a
    // request that does not exist): exit 1, as the partial-result contract says.
    const mixed = await runSvc(['credit-note', 'reject', '--yes', a, 'req-unknown-1'], { home: m.home, env: m.env });
    expect(mixed.exitCode).toBe(1);
    expect(mixed.stdout).toContain('req-unknown-1 error:');
    expect(mixed.stderr).toMatch(/2 requests were not moved to REJECTED|of 2 requests were not moved/);
  });
});

describe('poll: filters by what is encrypted, order and limit', () => {
  it('--reason, --refund, --sort created|age, --reverse and --limit', async () => {
    const m = merchant();
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const trigger = async (...args: string[]) => (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1', ...args])).stdout.trim();
    const first = await trigger('--reason', 'DEFECTIVE');
    await new Promise((r) => setTimeout(r, 5));
    const second = await trigger('--refund', 'STORE_CREDIT');
    await new Promise((r) => setTimeout(r, 5));
    const third = await trigger();
    const ids = async (...args: string[]) => (await m.json<{ requestId: string }[]>(['credit-note', 'poll', '--receipt', serviceReceiptId, ...args])).map((q) => q.requestId);
    expect(await ids('--reason', 'defective')).toEqual([first]);
    expect(await ids('--refund', 'STORE_CREDIT')).toEqual([second]);
    expect(await ids('--sort', 'created')).toEqual([first, second, third]);
    expect(await ids('--sort', 'age', '--limit', '2')).toEqual([third, second]);
    expect(await ids('--sort', 'created', '--reverse', '--limit', '1')).toEqual([third]);
    const refused = await runSvc(['credit-note', 'poll', '--no-decrypt', '--reason', 'DEFECTIVE'], { home: m.home, env: m.env });
    expect(refused.exitCode).toBe(2);
  });
});

describe('show as the decision, issue --dry-run', () => {
  it('show and --dry-run compute the credit note that issue then issues; nothing is sent by either', async () => {
    const m = merchant();
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const requestId = (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1'])).stdout.trim();
    const totalLine = (text: string) => /subtotal .* total [\d.]+ EUR/.exec(text)?.[0];

    // The decision is on stdout with the request (`show X | less` keeps it), and in --json.
    const shown = await m.svc(['credit-note', 'show', requestId.slice(0, 8)]);
    expect(shown.stdout).toMatch(/1 of 2/);
    expect(shown.stdout).toMatch(/return window: \d+ days? left \(ends \d{4}-\d\d-\d\d\)/);
    expect(shown.stdout).toContain('checks: all passed');
    const dry = await m.svc(['credit-note', 'issue', requestId, '--dry-run']);
    expect(dry.stderr).toContain('dry run: every check passed');
    expect(totalLine(dry.stderr)).toBe(totalLine(shown.stdout));
    const dryJson = await m.json<{ creditNote: unknown; totals: unknown; currency: string }>(['credit-note', 'issue', requestId, '--dry-run']);
    // Shaped like show's decision, as the README says.
    expect(dryJson).toMatchObject({ requestId, checks: 'passed' });
    const shownJson = await m.json<{ decision: { checks: string; creditNote: { documentNumber: string }; totals: unknown; currency: string } }>(['credit-note', 'show', requestId]);
    expect(shownJson.decision).toMatchObject({ checks: 'passed', totals: dryJson.totals, currency: dryJson.currency });
    expect({ ...shownJson.decision.creditNote, issueDate: undefined }).toEqual({ ...(dryJson.creditNote as object), issueDate: undefined });
    const deliveries = async () => ((await (await fetch(`${m.sandbox.url}/sandbox/deliveries`)).json()) as { kind: string }[]).filter((d) => d.kind === 'CREDIT_NOTE').length;
    const before = await deliveries();

    const issued = await m.svc(['credit-note', 'issue', requestId, '--yes']);
    expect(totalLine(issued.stderr)).toBe(totalLine(shown.stdout));
    expect(await deliveries()).toBeGreaterThan(before);

    // A request past the return window (a merchant whose window is 0 days): show names the check issue would fail.
    const late = (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1'])).stdout.trim();
    const refused = await runSvc(['credit-note', 'show', late], { home: m.home, env: { ...m.env, SVC_RETURN_WINDOW_DAYS: '0' } });
    expect(refused.exitCode, refused.stderr).toBe(0);
    expect(refused.stdout).toMatch(/checks: `issue` would refuse it:[\s\S]*return window of 0 days ended/);
    const refusedJson = await runSvc(['credit-note', 'show', late, '--json'], { home: m.home, env: { ...m.env, SVC_RETURN_WINDOW_DAYS: '0' } });
    expect((JSON.parse(refusedJson.stdout) as { decision: unknown }).decision).toMatchObject({ checks: 'failed', issues: [expect.objectContaining({ message: expect.stringContaining('return window of 0 days ended') })] });
  });
});

describe('every other ID by a unique prefix', () => {
  it('Grants (grants show/use, token get --grant), keys (keys upload), receipts (sandbox deliveries, trigger), a too-short one refused', async () => {
    const m = merchant();
    const grants = await m.json<{ grant_id: string }[]>(['grants', 'list']);
    const grantId = grants[0]!.grant_id;
    const shown = await m.json<{ grant_id: string }>(['grants', 'show', grantId.slice(0, 8)]);
    expect(shown.grant_id).toBe(grantId);
    expect((await m.json<{ grant: string }>(['grants', 'use', grantId.slice(0, 8)])).grant).toBe(grantId);
    expect((await m.json<{ grant_id: string }>(['token', 'get', '--grant', grantId.slice(0, 8)])).grant_id).toBe(grantId);
    const shortGrant = await runSvc(['grants', 'show', grantId.slice(0, 3)], { home: m.home, env: m.env });
    expect(shortGrant.exitCode).toBe(2);
    expect(shortGrant.stderr).toContain('is too short');

    const keys = await m.json<{ keyId: string }[]>(['keys', 'list']);
    const keyId = keys[0]!.keyId;
    expect((await m.svc(['keys', 'upload', keyId.slice(0, 10)])).stdout).toContain(keyId);

    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const deliveries = await m.json<{ serviceReceiptId: string }[]>(['sandbox', 'deliveries', serviceReceiptId.slice(0, 8)]);
    expect(deliveries.length).toBeGreaterThan(0);
    expect(new Set(deliveries.map((d) => d.serviceReceiptId))).toEqual(new Set([serviceReceiptId]));
    const requested = await m.json<{ serviceReceiptId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId.slice(0, 8), '--item', '4001234567890:1']);
    expect(requested.serviceReceiptId).toBe(serviceReceiptId);
  });

  // A mistyped receipt ID matches nothing here, so it is passed on and the service's "not
  // found" answers (exit 6): it is not a receipt without deliveries ("nothing to show", exit 0),
  // nor a customer without devices.
  it('a receipt ID that matches nothing: sandbox deliveries and recipient resolve --receipt say not found, exit 6', async () => {
    const m = merchant();
    await m.svc(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const deliveries = await runSvc(['sandbox', 'deliveries', 'e0ba2a5x'], { home: m.home, env: m.env });
    expect(deliveries.exitCode, deliveries.stderr).toBe(6);
    expect(deliveries.stderr).toMatch(/^error: .*no receipt or credit note e0ba2a5x/m);
    expect(deliveries.stderr).not.toContain('nothing to show');
    const resolved = await runSvc(['recipient', 'resolve', '--receipt', 'e0ba2a5x'], { home: m.home, env: m.env });
    expect(resolved.exitCode, resolved.stderr).toBe(6);
    expect(resolved.stderr).toMatch(/^error: receipt e0ba2a5x not found/m);
    expect(resolved.stderr).not.toContain('device');
  });
});

describe('poll filters against a queue with every status and several receipts', () => {
  it('the open work by default, --all, each --status alone and together, --receipt by prefix, to --json and rows alike', async () => {
    const m = merchant();
    const receipts: string[] = [];
    for (let i = 0; i < 2; i++) receipts.push((await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com'])).serviceReceiptId);
    const status: Record<string, string> = {};
    const byReceipt: Record<string, string[]> = {};
    const request = async (receipt: string) => {
      const id = (await m.svc(['sandbox', 'trigger', 'return-request', receipt, '--item', '4001234567890:1'])).stdout.trim();
      (byReceipt[receipt] ??= []).push(id);
      return id;
    };
    // Each status on each receipt: moved by the merchant, or cancelled by the customer.
    for (const receipt of receipts) {
      status[await request(receipt)] = 'PENDING';
      const accepted = await request(receipt);
      await m.svc(['credit-note', 'accept', accepted]);
      status[accepted] = 'ACCEPTED';
      const partial = await request(receipt);
      await m.svc(['credit-note', 'accept', '--partial', partial, '--item', '4001234567890:1']);
      status[partial] = 'PARTIALLY_ACCEPTED';
      const rejected = await request(receipt);
      await m.svc(['credit-note', 'reject', '--yes', rejected]);
      status[rejected] = 'REJECTED';
      const completed = await request(receipt);
      await m.svc(['credit-note', 'accept', completed]);
      await m.svc(['credit-note', 'complete', '--yes', '--credited-elsewhere', completed]);
      status[completed] = 'COMPLETED';
      const cancelled = await request(receipt);
      await m.svc(['sandbox', 'trigger', 'cancel', cancelled]);
      status[cancelled] = 'CANCELLED';
    }
    const ours = new Set(Object.keys(status));
    const polled = async (...args: string[]) =>
      (await m.json<{ requestId: string; status: string }[]>(['credit-note', 'poll', ...args])).filter((q) => ours.has(q.requestId));
    const having = (...wanted: string[]) => Object.keys(status).filter((id) => wanted.includes(status[id]!)).sort();
    const ids = (items: { requestId: string }[]) => items.map((q) => q.requestId).sort();

    const open = await polled();
    expect(ids(open)).toEqual(having('PENDING', 'ACCEPTED', 'PARTIALLY_ACCEPTED'));
    for (const item of open) expect(item.status).toBe(status[item.requestId]);
    expect(ids(await polled('--all'))).toEqual([...ours].sort());
    for (const one of ['PENDING', 'ACCEPTED', 'PARTIALLY_ACCEPTED', 'REJECTED', 'COMPLETED', 'CANCELLED']) {
      expect(ids(await polled('--status', one.toLowerCase())), one).toEqual(having(one));
    }
    expect(ids(await polled('--status', 'REJECTED,CANCELLED', '--status', 'COMPLETED'))).toEqual(having('REJECTED', 'CANCELLED', 'COMPLETED'));
    const [first, second] = receipts as [string, string];
    expect(ids(await polled('--all', '--receipt', first.slice(0, 8)))).toEqual([...byReceipt[first]!].sort());
    expect(ids(await polled('--receipt', second.slice(0, 8)))).toEqual(byReceipt[second]!.filter((id) => ['PENDING', 'ACCEPTED', 'PARTIALLY_ACCEPTED'].includes(status[id]!)).sort());

    // Rows (piped) show exactly what --json shows.
    const rows = (await m.svc(['credit-note', 'poll', '--status', 'rejected,cancelled'])).stdout.trim().split('\n');
    expect(rows.map((r) => r.split('\t')[0]).filter((id) => ours.has(id!)).sort()).toEqual(having('REJECTED', 'CANCELLED'));
  });
});
