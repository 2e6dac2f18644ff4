// Finding a return by what the customer has (issue 20): the receipt's document number
// (exactly, or a unique prefix) finds the same requests as its serviceReceiptId, in `poll
// --receipt` and wherever a receipt is named; `--customer` finds them by the email, phone or
// name the merchant gave with the receipt (this profile's ledger); the table shows the
// document number; filter values are checked like --status.
import { describe, expect, it } from 'vitest';
import { repoRoot, runSvc } from './helpers.js';
import { useMerchant, type PolledItem } from './merchant.js';
import { join } from 'node:path';

const { merchant } = useMerchant();

describe('finding a return by what the customer has', () => {
  it('poll --receipt R-… and --customer alice@ find the same requests as by UUID', async () => {
    const m = merchant();
    const alice = await m.json<{ serviceReceiptId: string }>([
      'receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com', '--customer', join(repoRoot, 'fixtures', 'customers', 'alice.json'),
    ]);
    const bob = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'bob@example.com']);
    const trigger = async (receipt: string) => (await m.svc(['sandbox', 'trigger', 'return-request', receipt, '--item', '4001234567890:1'])).stdout.trim();
    const aliceRequests = [await trigger(alice.serviceReceiptId), await trigger(alice.serviceReceiptId)];
    await trigger(bob.serviceReceiptId);
    const documentNumber = (await m.json<PolledItem[]>(['credit-note', 'poll', '--receipt', alice.serviceReceiptId])).map((i) => (i.returnRequest as unknown as { receiptId: string }).receiptId)[0]!;
    expect(documentNumber).toMatch(/^R-2025-000871-\d+$/);

    const ids = async (...args: string[]) => (await m.json<PolledItem[]>(['credit-note', 'poll', ...args])).map((i) => i.requestId).sort();
    const byUuid = await ids('--receipt', alice.serviceReceiptId);
    expect(byUuid).toEqual([...aliceRequests].sort());
    expect(await ids('--receipt', documentNumber)).toEqual(byUuid);
    expect(await ids('--customer', 'alice@')).toEqual(byUuid);
    expect(await ids('--customer', 'ALICE EXAMPLE')).toEqual(byUuid);
    expect(await ids('--customer', '+49 151 0000 0001')).toEqual(byUuid);
    expect(await ids('--customer', 'nobody@')).toEqual([]);
    expect(await ids('--customer', 'alice@', '--receipt', bob.serviceReceiptId)).toEqual([]);

    // A prefix of a document number that several receipts share is ambiguous: exit 2 naming them.
    const ambiguous = await runSvc(['credit-note', 'poll', '--receipt', 'R-2025-000871-'], { home: m.home, env: m.env });
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.stderr).toContain('is ambiguous');

    // Wherever a receipt is named: the sandbox's deliveries of the receipt, by its document number.
    const deliveries = await m.json<unknown[]>(['sandbox', 'deliveries', documentNumber]);
    expect(deliveries.length).toBeGreaterThan(0);
    expect(await m.json<unknown[]>(['sandbox', 'deliveries', alice.serviceReceiptId])).toEqual(deliveries);

    // The table on a terminal shows the document number: here, piped rows keep the serviceReceiptId.
    const piped = await m.svc(['credit-note', 'poll', '--receipt', documentNumber]);
    expect(piped.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[1])).toEqual([alice.serviceReceiptId, alice.serviceReceiptId]);
  }, 60_000);

  it('--reason and --refund are checked like --status: exit 2 naming the valid values', async () => {
    const m = merchant();
    const reason = await runSvc(['credit-note', 'poll', '--reason', 'BROKEN'], { home: m.home, env: m.env });
    expect(reason.exitCode).toBe(2);
    expect(reason.stderr).toContain('--reason BROKEN is not a reason code');
    expect(reason.stderr).toContain('DAMAGED, DEFECTIVE, WRONG_ITEM, NOT_AS_DESCRIBED, NO_LONGER_NEEDED, OTHER');
    const refund = await runSvc(['credit-note', 'poll', '--refund', 'BANK'], { home: m.home, env: m.env });
    expect(refund.exitCode).toBe(2);
    expect(refund.stderr).toContain('ORIGINAL_PAYMENT_METHOD, BANK_TRANSFER, STORE_CREDIT');
  }, 30_000);
});
