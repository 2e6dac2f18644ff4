// `svc credit-note issue` end to end on the built binary: two processes issuing against one
// receipt at the same moment, with nothing but the state directory between them; and a
// return accepted only in part, credited with --item, as the customer's devices get it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBarrierProxy } from './barrier-proxy.js';
import { runSvc, tempDirs, type SvcResult } from './helpers.js';
import { readLedgers } from './ledger.js';
import { startMerchant, type Merchant } from './merchant.js';
import { decrypt, devicePrivateKeys } from './oracle.js';

const dirs = tempDirs();
let m: Merchant;
const json = <T>(args: string[]) => m.json<T>(args);

/** Quantity 1 on the groceries receipt. */
const EGGS = '4005555000104';
/** Quantity 1 too. */
const BREAD = '4009876543210';
const MILK = '4001234567890';
/** 6 × 0.59, VAT 19 %. */
const WATER = '4001111222333';

beforeAll(async () => {
  m = await startMerchant(dirs);
});
afterAll(async () => {
  await m?.sandbox.stop();
  await dirs.cleanup();
});

/** Every credit note the sandbox holds, by the deliveries it made for them. */
async function sandboxCreditNotes(): Promise<Set<string>> {
  const deliveries = await json<{ serviceReceiptId: string; kind: string }[]>(['sandbox', 'deliveries']);
  return new Set(deliveries.filter((d) => d.kind === 'CREDIT_NOTE').map((d) => d.serviceReceiptId));
}

/** This machine's record of the credit notes issued against a receipt (any profile). */
async function localCreditNotes(serviceReceiptId: string) {
  return (await readLedgers(m.home.stateDir)).creditNotes.filter((n) => n.parent === serviceReceiptId);
}

/**
 * `svc credit-note issue REQUEST_ID --yes` for every request at once, from one machine.
 * Each is held at the credit note template until all have got there (or 5 s passed):
 * without a lock around the whole issue all get there, each having checked the return
 * against a record without the others' credit notes.
 */
async function issueAtOnce(requestIds: readonly string[]): Promise<{ results: SvcResult[]; atTemplateTogether: number; outcomes: string }> {
  const proxy = await startBarrierProxy(m.sandbox.url, {
    hold: (method, path) => method === 'POST' && path === '/credit-note/template',
    parties: requestIds.length,
    waitMs: 5_000,
  });
  const results = await Promise.all(
    requestIds.map((id) => runSvc(['credit-note', 'issue', id, '--yes'], { home: m.home, env: { SVC_BASE_URL: proxy.url }, timeout: 60_000 })),
  ).finally(() => proxy.close());
  const outcomes = results.map((r) => `exit ${r.exitCode}\n${r.stderr}`).join('\n---\n');
  return { results, atTemplateTogether: proxy.arrived(), outcomes };
}

async function returnRequest(serviceReceiptId: string, item: string): Promise<string> {
  return (await json<{ requestId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', item])).requestId;
}

describe('two issues against the same receipt at once', () => {
  it('issue one credit note; the other sees it and is refused as an over-return (exit 2)', async () => {
    const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    // Two requests for the whole eggs line: either alone is fine, both together return 2 of 1.
    const requests = [await returnRequest(serviceReceiptId, `${EGGS}:1`), await returnRequest(serviceReceiptId, `${EGGS}:1`)];
    const before = await sandboxCreditNotes();

    const { results, atTemplateTogether, outcomes } = await issueAtOnce(requests);
    const issued = results.filter((r) => r.exitCode === 0);
    const refused = results.filter((r) => r.exitCode === 2);
    expect(issued, outcomes).toHaveLength(1);
    expect(refused, outcomes).toHaveLength(1);
    expect(refused[0]?.stderr).toContain(
      `lineItems.0 (productId ${EGGS}): quantity 1 is more than the 0 that can still be returned (bought 1; 1 already credited by`,
    );
    // The ledger's reservation refused it before the template: only the one that reserved got that far.
    expect(atTemplateTogether).toBe(1);

    const creditNoteId = issued[0]?.stdout.trim();
    const after = await sandboxCreditNotes();
    expect([...after].filter((id) => !before.has(id))).toEqual([creditNoteId]);
    expect((await localCreditNotes(serviceReceiptId)).map((n) => n.serviceReceiptId)).toEqual([creditNoteId]);
  });

  it('for different lines: both issued, one after the other, with their own document numbers', async () => {
    const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const requests = [await returnRequest(serviceReceiptId, `${EGGS}:1`), await returnRequest(serviceReceiptId, `${BREAD}:1`)];

    const { results, outcomes } = await issueAtOnce(requests);
    expect(results.map((r) => r.exitCode), outcomes).toEqual([0, 0]);
    // Whichever reserved second was checked against the first one's reservation: its number is -2
    // (had it been shown -1 before, it says so and shows the new figures: --yes).
    if (/after this credit note was shown/.test(outcomes)) expect(outcomes).toMatch(/after this credit note was shown; issuing it as it is now:\ncredit note CN-R-2025-000871-\d+-2 /);
    const local = await localCreditNotes(serviceReceiptId);
    expect(local.map((n) => n.serviceReceiptId).sort()).toEqual(results.map((r) => r.stdout.trim()).sort());
    expect(local.map((n) => [n.documentNumber, n.requestId]).sort((x, y) => ((x[0] ?? "") < (y[0] ?? "") ? -1 : 1))).toEqual([
      [expect.stringMatching(/^CN-R-2025-000871-\d+-1$/), expect.any(String)],
      [expect.stringMatching(/^CN-R-2025-000871-\d+-2$/), expect.any(String)],
    ]);
  });
});

describe('--document-number', () => {
  it('a number the issuer\'s credit note of another receipt has is refused before anything is sent (exit 2 naming it); the next free one then issues', async () => {
    const first = (await json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com'])).serviceReceiptId;
    const second = (await json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com'])).serviceReceiptId;
    const a = await returnRequest(first, `${EGGS}:1`);
    const b = await returnRequest(second, `${EGGS}:1`);
    await json(['credit-note', 'issue', a, '--yes', '--document-number', 'CN-CHOSEN-1']);
    const before = await sandboxCreditNotes();
    const taken = await runSvc(['credit-note', 'issue', b, '--yes', '--document-number', 'CN-CHOSEN-1'], { home: m.home, env: m.env });
    expect(taken.exitCode, taken.stderr).toBe(2);
    expect(taken.stderr).toContain(`credit note number CN-CHOSEN-1 is taken: the issuer's credit note of request ${a} has it; nothing was sent`);
    expect(await sandboxCreditNotes()).toEqual(before);
    const issued = await json<{ documentNumber: string }>(['credit-note', 'issue', b, '--yes']);
    expect(issued.documentNumber).toMatch(/^CN-R-2025-000871-\d+-1$/);
  });
});

describe('a return accepted in part', () => {
  it('accepted in part elsewhere (no part recorded) → issue --item: the credit note holds only that part, prorated; --complete completes the request', async () => {
    const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const { requestId } = await json<{ requestId: string }>([
      'sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${MILK}:2`, '--item', `${WATER}:3`,
    ]);
    // Another client (or an older svc) accepted it in part: the service knows the status, no ledger knows the part.
    await m.svc(['credit-note', 'poll']);
    await m.svc(['api', 'PATCH', `/credit-note/requests/${requestId}/status`, '--field', 'status=PARTIALLY_ACCEPTED']);

    // Without the part named, nothing is credited.
    const unnamed = await runSvc(['credit-note', 'issue', requestId, '--yes'], { home: m.home, env: m.env });
    expect(unnamed.exitCode, unnamed.stderr).toBe(2);
    expect(unnamed.stderr).toContain(`return request ${requestId} is PARTIALLY_ACCEPTED: name the part you accepted with --item PRODUCT_ID:QTY`);
    expect(unnamed.stderr).toContain(`hint: it asks for --item ${MILK}:2 --item ${WATER}:3`);
    const tooMany = await runSvc(['credit-note', 'issue', requestId, '--yes', '--item', `${WATER}:4`], { home: m.home, env: m.env });
    expect(tooMany.exitCode, tooMany.stderr).toBe(2);
    expect(tooMany.stderr).toContain(`productId ${WATER}: quantity 4 is more than the 3 the request asks for`);

    const before = await sandboxCreditNotes();
    const issued = await json<{ serviceReceiptId: string; totalAmount: number; lines: unknown[]; status: string }>([
      'credit-note', 'issue', requestId, '--yes', '--complete', '--item', `${WATER}:2`,
    ]);
    // Water 2 of 6: net 1.18, VAT 19 % of 0.67 prorated 0.2233 → 0.22.
    expect(issued).toMatchObject({ totalAmount: 1.4, status: 'COMPLETED', lines: [{ productId: WATER, quantity: 2, subtotal: 1.18, total: 1.4 }] });
    expect([...(await sandboxCreditNotes())].filter((id) => !before.has(id))).toEqual([issued.serviceReceiptId]);

    // What every device of the customer decrypts: one credit note line, the part accepted.
    const deliveries = await json<{ recipientId: string; status: string; entry: Record<string, string> }[]>(['sandbox', 'deliveries', issued.serviceReceiptId]);
    expect(deliveries.length).toBeGreaterThan(0);
    const keys = await devicePrivateKeys(m.fixture.path);
    for (const d of deliveries) {
      expect(d.status).toBe('DELIVERED');
      const creditNote = decrypt(d.entry.encryptedCreditNote ?? '', d.entry.encryptedSymmetricKey ?? '', keys.get(d.recipientId) ?? '') as {
        creditNoteLine: { creditedQuantity: { value: number }; lineExtensionAmount: { value: number }; item: { sellersItemIdentification: { id: { value: string } } } }[];
        legalMonetaryTotal: { lineExtensionAmount: { value: number }; payableAmount: { value: number } };
      };
      expect(creditNote.creditNoteLine.map((l) => [l.item.sellersItemIdentification.id.value, l.creditedQuantity.value, l.lineExtensionAmount.value])).toEqual([
        [WATER, 2, 1.18],
      ]);
      expect(creditNote.legalMonetaryTotal).toMatchObject({ lineExtensionAmount: { value: 1.18 }, payableAmount: { value: 1.4 } });
    }

    const queue = await json<{ requestId: string; status: string }[]>(['credit-note', 'poll', '--all']);
    expect(queue.find((q) => q.requestId === requestId)?.status).toBe('COMPLETED');
    const [recorded] = await localCreditNotes(serviceReceiptId);
    expect(recorded).toMatchObject({ serviceReceiptId: issued.serviceReceiptId, lines: [{ productId: WATER, quantity: 2 }] });
  });
});

describe('the accepted part, a decision of record (docs/interface-decisions.md#partial-acceptance)', () => {
  const trigger = async () => {
    const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    // Milk 2, water 3, bread 1: three lines.
    const { requestId } = await json<{ requestId: string }>([
      'sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${MILK}:2`, '--item', `${WATER}:3`, '--item', `${BREAD}:1`,
    ]);
    return { serviceReceiptId, requestId };
  };

  it('accept --partial --item keeps the part (2 of 3 lines); issue with more exits 2 and sends nothing; issue alone credits exactly the part', async () => {
    const { serviceReceiptId, requestId } = await trigger();
    // --partial off a terminal without the part: exit 2 naming --item, nothing moved.
    const unnamed = await runSvc(['credit-note', 'accept', requestId, '--partial'], { home: m.home, env: m.env });
    expect(unnamed.exitCode, unnamed.stderr).toBe(2);
    expect(unnamed.stderr).toContain('needs the part: name it with --item PRODUCT_ID:QTY');
    expect((await json<{ requestId: string; status: string }[]>(['credit-note', 'poll'])).find((q) => q.requestId === requestId)?.status).toBe('PENDING');

    const accepted = await json<{ status: string; acceptedPart: unknown }>(['credit-note', 'accept', requestId, '--item', `${MILK}:1`, '--item', `${WATER}:3`]);
    expect(accepted).toMatchObject({ status: 'PARTIALLY_ACCEPTED', acceptedPart: [{ productId: MILK, quantity: 1 }, { productId: WATER, quantity: 3 }] });

    // show prints the part; its --json carries it.
    const shown = await runSvc(['credit-note', 'show', requestId], { home: m.home, env: m.env });
    expect(shown.stdout).toMatch(new RegExp(`accepted part\\s+${MILK}:1 ${WATER}:3 \\(recorded `));
    expect((await json<{ acceptedPart: { items: unknown[] } }>(['credit-note', 'show', requestId])).acceptedPart.items).toEqual([
      { productId: MILK, quantity: 1 },
      { productId: WATER, quantity: 3 },
    ]);

    // More than the part — the whole request, or a line beyond it — is refused before anything is sent.
    const before = await sandboxCreditNotes();
    for (const more of [[`${MILK}:2`, `${WATER}:3`, `${BREAD}:1`], [`${BREAD}:1`], [`${MILK}:2`]]) {
      const refused = await runSvc(['credit-note', 'issue', requestId, '--yes', ...more.flatMap((i) => ['--item', i])], { home: m.home, env: m.env });
      expect(refused.exitCode, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(`return request ${requestId} was accepted in part (${MILK}:1 ${WATER}:3, recorded `);
      const dry = await runSvc(['credit-note', 'issue', requestId, '--dry-run', ...more.flatMap((i) => ['--item', i])], { home: m.home, env: m.env });
      expect(dry.exitCode, dry.stderr).toBe(2);
    }
    expect(await sandboxCreditNotes()).toEqual(before);

    // No --item: exactly the part.
    const issued = await json<{ serviceReceiptId: string; lines: { productId: string; quantity: number }[] }>(['credit-note', 'issue', requestId, '--yes']);
    expect(issued.lines.map((l) => [l.productId, l.quantity])).toEqual([
      [MILK, 1],
      [WATER, 3],
    ]);
    expect([...(await sandboxCreditNotes())].filter((id) => !before.has(id))).toEqual([issued.serviceReceiptId]);
    const [recorded] = await localCreditNotes(serviceReceiptId);
    expect(recorded?.lines.map((l) => [l.productId, l.quantity])).toEqual([
      [MILK, 1],
      [WATER, 3],
    ]);
  });

  it('accept --item refuses half a bottle of milk (a counted unit) before anything moves, naming the flag and the unit', async () => {
    const { requestId } = await trigger();
    const half = await runSvc(['credit-note', 'accept', requestId, '--item', `${MILK}:0.5`], { home: m.home, env: m.env });
    expect(half.exitCode, half.stderr).toBe(2);
    expect(half.stderr).toContain(`${MILK}:0.5: quantity must be a whole number: EA is a unit that is counted`);
    expect(half.stdout).toBe('');
    const shown = await json<{ status: string; acceptedPart?: unknown }>(['credit-note', 'show', requestId]);
    expect(shown.status).toBe('PENDING');
    expect(shown.acceptedPart).toBeUndefined();
  });

  it('issue --item beyond the part, when the part itself can no longer be credited whole: the hint says so, not "leave out --item"', async () => {
    const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    // Six bottles of water bought. One request asks 3 (and milk), accepted for the 3 of water;
    // another asks 4 and is credited first: 2 are left.
    const first = (await json<{ requestId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${WATER}:3`, '--item', `${MILK}:1`])).requestId;
    const second = await returnRequest(serviceReceiptId, `${WATER}:4`);
    await m.svc(['credit-note', 'accept', first, '--item', `${WATER}:3`]);
    await m.svc(['credit-note', 'issue', second, '--yes']);

    const refused = await runSvc(['credit-note', 'issue', first, '--yes', '--item', `${WATER}:4`], { home: m.home, env: m.env });
    expect(refused.exitCode, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`--item ${WATER}:4 is more than the 3 accepted`);
    expect(refused.stderr).not.toContain('leave out --item to credit the accepted part');
    expect(refused.stderr).toContain('the accepted part cannot be credited whole either');
    expect(refused.stderr).toContain('quantity 3 is more than the 2 that can still be returned');
    expect(refused.stderr).toContain(`credit only what can still be returned with \`svc credit-note issue ${first} --item ${WATER}:2\`, `);
    // What it says is so: without --item the part is refused, and the lower --item it names is issued.
    const whole = await runSvc(['credit-note', 'issue', first, '--yes'], { home: m.home, env: m.env });
    expect(whole.exitCode, whole.stderr).toBe(2);
    expect(whole.stderr).toContain('quantity 3 is more than the 2 that can still be returned');
    const issued = await json<{ lines: { productId: string; quantity: number }[] }>(['credit-note', 'issue', first, '--yes', '--item', `${WATER}:2`]);
    expect(issued.lines.map((l) => [l.productId, l.quantity])).toEqual([[WATER, 2]]);
  });

  it('issue --item may lower the recorded part', async () => {
    const { requestId } = await trigger();
    await m.svc(['credit-note', 'accept', requestId, '--item', `${MILK}:2`, '--item', `${WATER}:3`]);
    const issued = await json<{ lines: { productId: string; quantity: number }[] }>(['credit-note', 'issue', requestId, '--yes', '--item', `${WATER}:1`]);
    expect(issued.lines.map((l) => [l.productId, l.quantity])).toEqual([[WATER, 1]]);
  });
});
