// The part of a return request a merchant accepts, typed at a prompt the way `issue --item`
// takes it: `PRODUCT_ID:QTY`, several separated by spaces or commas. Checked as `issue`
// checks --item (approved.ts), so what the prompt lets through, `issue` credits.
import type { ReturnRequest } from '../contract/returns.js';
import { SvcError, ValidationError } from '../errors.js';
import { parseItem, type ItemQuantity } from './item-flag.js';
import { approvedPart } from './approved.js';
import { quantityOf, scaledQuantity } from './check.js';

/** What the request asks for, in that form: the starting point to lower. */
export function askedPart(request: ReturnRequest): string {
  const asked = new Map<string, number>();
  for (const line of request.lineItems) asked.set(line.productId, (asked.get(line.productId) ?? 0) + scaledQuantity(line.quantity));
  return [...asked].map(([productId, quantity]) => `${productId}:${quantityOf(quantity)}`).join(' ');
}

/** The items typed; a UsageError or ValidationError (exit 2) naming what is wrong. */
export function parsePart(text: string, requestId: string, request: ReturnRequest): ItemQuantity[] {
  const items = text
    .split(/[\s,]+/)
    .filter((word) => word !== '')
    .map(parseItem);
  approvedPart({ requestId, status: 'PARTIALLY_ACCEPTED', request, items });
  return items;
}

/** For a prompt's validation: true, or what to fix. */
export function partProblem(text: string, requestId: string, request: ReturnRequest): true | string {
  try {
    parsePart(text, requestId, request);
    return true;
  } catch (error) {
    if (error instanceof ValidationError) return error.issues.map((i) => `${i.path}: ${i.message}`).join('; ');
    if (error instanceof SvcError) return error.message.replace(/^--item: /, '');
    throw error;
  }
}
