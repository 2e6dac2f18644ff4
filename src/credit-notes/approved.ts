// Which part of a return request a credit note answers. Without a selection, all of it; a
// merchant who accepted only part (PARTIALLY_ACCEPTED) must name that part, product by
// product (`--item PRODUCT_ID:QTY`), and can only name what the customer asked for.
import type { ReturnRequest } from '../contract/returns.js';
import type { Issue } from '../contract/validate.js';
import { UsageError, ValidationError } from '../errors.js';
import { quantityOf, scaledQuantity, type ApprovedLine } from './check.js';

export interface Selection {
  requestId: string;
  /** The queue item's status. */
  status: string;
  request: ReturnRequest;
  /** What to credit, one entry per product; none: the whole request. */
  items: readonly { productId: string; quantity: number }[];
}

export interface ApprovedPart {
  /** By line of the request, in its order. */
  lines: ApprovedLine[];
  /** Every line at the quantity asked for. */
  whole: boolean;
}

/** The part to credit; UsageError (exit 2) when it must be named and is not, ValidationError naming each product otherwise. */
export function approvedPart({ requestId, status, request, items }: Selection): ApprovedPart {
  const asked = askedPerProduct(request);
  if (items.length === 0) {
    if (status === 'PARTIALLY_ACCEPTED') {
      throw new UsageError(`return request ${requestId} is PARTIALLY_ACCEPTED: name the part you accepted with --item PRODUCT_ID:QTY`, {
        hint: `it asks for ${[...asked].map(([productId, quantity]) => `--item ${productId}:${quantityOf(quantity)}`).join(' ')}; keep what you accepted, lowering the quantities`,
      });
    }
    return { lines: request.lineItems.map((item, line) => ({ line, quantity: item.quantity })), whole: true };
  }

  const issues: Issue[] = [];
  const named = new Set<string>();
  const lines: ApprovedLine[] = [];
  for (const { productId, quantity } of items) {
    const path = `productId ${productId}`;
    if (named.has(productId)) {
      issues.push({ path, message: 'is named by more than one --item' });
      continue;
    }
    named.add(productId);
    const requested = asked.get(productId);
    if (requested === undefined) {
      const list = [...asked].map(([id, q]) => `${id}:${quantityOf(q)}`).join(', ');
      issues.push({ path, message: `is not a line of return request ${requestId}, which asks for ${list}` });
      continue;
    }
    let left = scaledQuantity(quantity);
    if (left <= 0) {
      issues.push({ path, message: `quantity ${quantity} is less than the smallest quantity counted, ${quantityOf(1)}` });
      continue;
    }
    if (left > requested) {
      issues.push({ path, message: `quantity ${quantity} is more than the ${quantityOf(requested)} the request asks for` });
      continue;
    }
    // A product on several lines of the request is taken from them in order.
    request.lineItems.forEach((item, line) => {
      if (item.productId !== productId || left === 0) return;
      const take = Math.min(left, scaledQuantity(item.quantity));
      lines.push({ line, quantity: quantityOf(take) });
      left -= take;
    });
  }
  if (issues.length > 0) {
    throw new ValidationError(`--item for return request ${requestId}`, issues, {
      hint: 'nothing was submitted; name products of the request, each with at most the quantity it asks for',
    });
  }
  lines.sort((a, b) => a.line - b.line);
  const whole = [...asked].every(([productId, quantity]) => scaledQuantity(items.find((i) => i.productId === productId)?.quantity ?? 0) === quantity);
  return { lines, whole };
}

/** The quantity asked for per product, scaled, in the order the products first appear. */
function askedPerProduct(request: ReturnRequest): Map<string, number> {
  const asked = new Map<string, number>();
  for (const item of request.lineItems) asked.set(item.productId, (asked.get(item.productId) ?? 0) + scaledQuantity(item.quantity));
  return asked;
}
