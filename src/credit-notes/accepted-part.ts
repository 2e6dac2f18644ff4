// The part of a return request the merchant accepted, as a decision of record (docs/interface-decisions.md#partial-acceptance
// "Partial acceptance"): `accept --partial --item P:Q` (and triage's `p`) keeps it in the
// ledger — shared with the team on PostgreSQL — and `issue` on a PARTIALLY_ACCEPTED request
// credits that part by default and never more. A request accepted in part elsewhere, or by an
// svc before this one, has no part recorded: it is asked for on a terminal, else named with
// `--item` (exit 2 without).
import { recorder } from './recorder.js';
import type { ReturnRequest } from '../contract/returns.js';
import { RequestStateError } from '../api/credit-note.js';
import { UsageError, ValidationError } from '../errors.js';
import { ReceiptTemplateRequest } from '../contract/template.js';
import { countableQuantityProblem } from '../contract/units.js';
import type { Factory } from '../factory.js';
import { inputOrCancel } from '../io/prompter.js';
import type { AcceptedPart } from '../store/ledger.js';
import type { ItemQuantity } from './item-flag.js';
import { askedPart, parsePart, partProblem } from './part.js';
import { askedProducts } from './summary.js';
import { note } from '../io/streams.js';
import { quantityOf, scaledQuantity } from './check.js';

/** `milk:1 bread:2`, as `--item` takes it. */
export function partText(items: readonly ItemQuantity[]): string {
  return items.map((i) => `${i.productId}:${i.quantity}`).join(' ');
}


/**
 * Records the part as the decision; refused (exit 7, nothing kept) once the request has a
 * credit note, issued or being submitted: the part it credited is the one that stands.
 * `grantFlag`: the request's, for the hints' commands (src/grants/company.ts grantFlagOf).
 */
export async function keepAcceptedPart(f: Factory, requestId: string, items: readonly ItemQuantity[], decidedFrom: AcceptedPart | undefined, grantFlag: string): Promise<AcceptedPart> {
  const part: AcceptedPart = { requestId, items: items.map((i) => ({ ...i })), acceptedAt: new Date(f.clock.now()).toISOString(), acceptedBy: recorder() };
  // Compare-and-set: a colleague's part recorded since this one was decided is not overwritten unseen.
  const notKept = await (await f.ledger()).keepAcceptedPart(part, (now) => sameRecordedPart(now, decidedFrom));
  if (notKept === undefined) return part;
  if ('creditNote' in notKept) throw creditedAlready(requestId, notKept.creditNote, { grantFlag });
  throw partChanged(requestId, notKept.changed, `${partText(items)} was not recorded; see the request with \`svc credit-note show ${requestId}${grantFlag}\` and run the command again to replace it`);
}

/** A colleague recorded another part since this run read it (exit 7). */
export function partChanged(requestId: string, now: AcceptedPart | undefined, hint: string): RequestStateError {
  const recorded = now === undefined ? 'not recorded' : `${partText(now.items)} (recorded ${now.acceptedAt}${now.acceptedBy ? ` by ${now.acceptedBy}` : ''})`;
  return new RequestStateError(`the accepted part of return request ${requestId} changed while this ran: it is now ${recorded}`, { hint });
}

/**
 * A request with a credit note (issued, or being submitted) keeps the decision it was credited by: its part, and not being rejected.
 * `grantFlag`: the request's, for the command of the default hint.
 */
export function creditedAlready(
  requestId: string,
  documentNumber: string,
  { grantFlag, refused = 'its accepted part can no longer change', hint }: { grantFlag: string; refused?: string; hint?: string },
): RequestStateError {
  return new RequestStateError(`return request ${requestId} already has credit note ${documentNumber} (issued, or being submitted): ${refused}`, {
    hint: hint ?? `nothing was recorded; see what was credited with \`svc credit-note show ${requestId}${grantFlag}\``,
  });
}

/** Whether the part recorded now is the one a command started from (none and none are the same). */
export function sameRecordedPart(a: AcceptedPart | undefined, b: AcceptedPart | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return samePart(a.items, b.items);
}

/** Same products at the same quantities, in any order. */
export function samePart(a: readonly ItemQuantity[], b: readonly ItemQuantity[]): boolean {
  const key = (items: readonly ItemQuantity[]) =>
    items
      .map((i) => `${i.productId}:${scaledQuantity(i.quantity)}`)
      .sort()
      .join(' ');
  return key(a) === key(b);
}

/** "4001234567890 ×1, 4005555000104 ×1": a part in a sentence. */
export function partWords(items: readonly ItemQuantity[]): string {
  return items.map((i) => `${i.productId} ×${i.quantity}`).join(', ');
}

/** What a credit note credits (or, being submitted, will), product by product as `--item` names a part: its lines summed by product. */
export function creditedPart(lines: readonly ItemQuantity[]): ItemQuantity[] {
  const byProduct = new Map<string, number>();
  for (const line of lines) byProduct.set(line.productId, (byProduct.get(line.productId) ?? 0) + scaledQuantity(line.quantity));
  return [...byProduct].map(([productId, scaled]) => ({ productId, quantity: quantityOf(scaled) }));
}

/**
 * What to credit of a request accepted in part: the recorded part, or `items` when they stay
 * within it (each a product of the part, at most its quantity); more is refused (exit 2)
 * naming the part. Undefined when no part is recorded.
 */
export function withinAcceptedPart(recorded: AcceptedPart | undefined, items: readonly ItemQuantity[]): ItemQuantity[] | undefined {
  if (recorded === undefined) return undefined;
  if (items.length === 0) return recorded.items.map((i) => ({ ...i }));
  const allowed = new Map(recorded.items.map((i) => [i.productId, scaledQuantity(i.quantity)]));
  const over = items.filter((i) => scaledQuantity(i.quantity) > (allowed.get(i.productId) ?? 0));
  if (over.length === 0) return [...items];
  throw new OverAcceptedPartError(
    `return request ${recorded.requestId} was accepted in part (${partText(recorded.items)}, recorded ${recorded.acceptedAt}${recorded.acceptedBy ? ` by ${recorded.acceptedBy}` : ''}): ${over
      .map((i) => `--item ${i.productId}:${i.quantity} is more than the ${quantityOf(allowed.get(i.productId) ?? 0)} accepted`)
      .join('; ')}`,
    { hint: `nothing was submitted; leave out --item to credit the accepted part, or lower it with --item` },
  );
}

/**
 * --item beyond the part recorded (exit 2). Its hint says the accepted part can be credited by
 * leaving out --item; `issue`, which can check that, says otherwise when it cannot (the
 * receipt's lines credited since by other requests).
 */
export class OverAcceptedPartError extends UsageError {}

/** The part, typed at a prompt as `--item` takes it, starting from `start` (default: what the request asks). */
export async function askPart(f: Factory, requestId: string, request: ReturnRequest, start?: readonly ItemQuantity[]): Promise<ItemQuantity[]> {
  // The products by name, above the IDs the answer is typed in.
  const record = await (await f.ledger()).receipt(request.serviceReceiptId);
  note(f.io, `${request.lineItems.length === 1 ? 'The product' : 'The products'} asked back:\n${askedProducts(request, record)}`);
  const kept = typedParts.get(requestId);
  const text = await inputOrCancel(
    f.prompter(),
    {
      message: `Which part of ${requestId.slice(0, 8)} is accepted? PRODUCT_ID:QTY, several separated by spaces:`,
      flag: '--item',
      default: kept ?? (start && start.length > 0 ? partText(start) : askedPart(request)),
      editable: true,
      validate: (value) => partProblem(value, requestId, request),
      typed: (value) => void typedParts.set(requestId, value),
    },
    'cancelled: nothing was accepted',
  );
  typedParts.delete(requestId);
  return parsePart(text, requestId, request);
}

/** A part typed and left (Esc) before it was taken, by request: offered again at the next prompt for it in this process. */
const typedParts = new Map<string, string>();

/**
 * A part in pieces the receipt cannot have (half a bottle of a product sold `EA`), against
 * the merchant's record of the receipt: ValidationError (exit 2) naming each --item, so it is
 * refused when accepted, not only later by `issue`. Without a record here, `issue` checks it.
 */
export async function refuseUncountablePart(f: Factory, serviceReceiptId: string, items: readonly ItemQuantity[]): Promise<void> {
  const record = await (await f.ledger()).receipt(serviceReceiptId);
  const parsed = record === undefined ? undefined : ReceiptTemplateRequest.safeParse(record.templateRequest);
  if (!parsed?.success) return;
  const issues = items.flatMap((i) => {
    const problem = countableQuantityProblem(parsed.data.products.find((p) => p.identifier === i.productId)?.unitCode, i.quantity);
    return problem === undefined ? [] : [{ path: `${i.productId}:${i.quantity}`, message: `quantity ${problem}` }];
  });
  if (issues.length > 0) throw new ValidationError('--item', issues, { hint: 'nothing was accepted; name a whole quantity of a product counted in pieces, e.g. --item PRODUCT_ID:1' });
}
