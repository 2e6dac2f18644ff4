// The repeatable `--item PRODUCT_ID:QTY` of the verbs that name part of a receipt: what a
// customer asks to return (`svc sandbox trigger return-request`) and what a merchant
// credits of it (`svc credit-note issue`).
import { UsageError } from '../errors.js';

/** A type, not an interface, so that it fits the looser schema types it is passed into. */
export type ItemQuantity = { productId: string; quantity: number };

/** `SKU-1:2` → `{ productId: 'SKU-1', quantity: 2 }`; the last colon splits, so product ids may contain colons. */
export function parseItem(value: string): ItemQuantity {
  const at = value.lastIndexOf(':');
  const productId = value.slice(0, Math.max(at, 0));
  const quantity = value.slice(at + 1);
  if (at <= 0 || !/^\d+(\.\d+)?$/.test(quantity) || Number(quantity) <= 0) {
    throw new UsageError(`--item: "${value}" is not PRODUCT_ID:QTY with a positive quantity`, {
      hint: 'for example --item SKU-MUG:1; repeat --item for more products',
    });
  }
  return { productId, quantity: Number(quantity) };
}
