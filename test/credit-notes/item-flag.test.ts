import { describe, expect, it } from 'vitest';
import { parseItem } from '../../src/credit-notes/item-flag.js';
import { UsageError } from '../../src/errors.js';

describe('--item PRODUCT_ID:QTY', () => {
  it('splits at the last colon', () => {
    expect(parseItem('SKU-MUG:1')).toEqual({ productId: 'SKU-MUG', quantity: 1 });
    expect(parseItem('urn:sku:7:2.5')).toEqual({ productId: 'urn:sku:7', quantity: 2.5 });
  });

  it('refuses anything but a product and a positive quantity (exit 2)', () => {
    for (const bad of ['SKU-MUG', ':1', 'SKU:0', 'SKU:0.0', 'SKU:-1', 'SKU:one', 'SKU:', 'SKU:1e3']) {
      expect(() => parseItem(bad), bad).toThrow(UsageError);
    }
    expect(() => parseItem('SKU:0')).toThrow('--item: "SKU:0" is not PRODUCT_ID:QTY with a positive quantity');
  });
});
