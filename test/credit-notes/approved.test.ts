import { describe, expect, it } from 'vitest';
import { approvedPart, type Selection } from '../../src/credit-notes/approved.js';
import { UsageError, ValidationError } from '../../src/errors.js';
import { groceries, returnOf } from './fixtures.js';

const MILK = '4001234567890';
const WATER = '4001111222333';
const BANANAS = 'PLU-4011';

function selection(items: Selection['items'], status = 'ACCEPTED', lines: [string, number][] = [[MILK, 2], [WATER, 3]]): Selection {
  return { requestId: 'req-1', status, request: returnOf(groceries(), lines), items };
}

function issuesOf(run: () => unknown): { path: string; message: string }[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(/^--item for return request req-1 is invalid:\n/);
    expect((error as ValidationError).hint).toMatch(/^nothing was submitted/);
    return [...(error as ValidationError).issues];
  }
  throw new Error('expected a ValidationError');
}

describe('approvedPart', () => {
  it('is the whole request without --item, PENDING or ACCEPTED', () => {
    for (const status of ['PENDING', 'ACCEPTED']) {
      expect(approvedPart(selection([], status))).toEqual({
        lines: [
          { line: 0, quantity: 2 },
          { line: 1, quantity: 3 },
        ],
        whole: true,
      });
    }
  });

  it('must be named for a PARTIALLY_ACCEPTED request: a usage error listing what was asked for', () => {
    const error = (() => {
      try {
        approvedPart(selection([], 'PARTIALLY_ACCEPTED'));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect(error).not.toBeInstanceOf(ValidationError);
    expect((error as UsageError).message).toBe('return request req-1 is PARTIALLY_ACCEPTED: name the part you accepted with --item PRODUCT_ID:QTY');
    expect((error as UsageError).hint).toBe(`it asks for --item ${MILK}:2 --item ${WATER}:3; keep what you accepted, lowering the quantities`);
  });

  it('credits only the products named, at the quantities named, in the order of the request', () => {
    expect(approvedPart(selection([{ productId: WATER, quantity: 1 }], 'PARTIALLY_ACCEPTED'))).toEqual({ lines: [{ line: 1, quantity: 1 }], whole: false });
    expect(approvedPart(selection([{ productId: WATER, quantity: 3 }, { productId: MILK, quantity: 1 }]))).toEqual({
      lines: [
        { line: 0, quantity: 1 },
        { line: 1, quantity: 3 },
      ],
      whole: false,
    });
  });

  it('is whole when every product is named at the quantity asked for', () => {
    expect(approvedPart(selection([{ productId: MILK, quantity: 2 }, { productId: WATER, quantity: 3 }])).whole).toBe(true);
  });

  it('takes a product on several lines of the request from them in order, fractions exactly', () => {
    const request = selection([{ productId: BANANAS, quantity: 0.3 }], 'PARTIALLY_ACCEPTED', [[BANANAS, 0.1], [MILK, 1], [BANANAS, 0.25]]);
    expect(approvedPart(request)).toEqual({
      lines: [
        { line: 0, quantity: 0.1 },
        { line: 2, quantity: 0.2 },
      ],
      whole: false,
    });
  });

  it('names every product that is not in the request, asked for less, or named twice', () => {
    expect(
      issuesOf(() =>
        approvedPart(
          selection([
            { productId: 'CANDY-1', quantity: 1 },
            { productId: MILK, quantity: 3 },
            { productId: WATER, quantity: 1 },
            { productId: WATER, quantity: 1 },
            { productId: BANANAS, quantity: 0.0000001 },
          ]),
        ),
      ),
    ).toEqual([
      { path: 'productId CANDY-1', message: `is not a line of return request req-1, which asks for ${MILK}:2, ${WATER}:3` },
      { path: `productId ${MILK}`, message: 'quantity 3 is more than the 2 the request asks for' },
      { path: `productId ${WATER}`, message: 'is named by more than one --item' },
      { path: `productId ${BANANAS}`, message: `is not a line of return request req-1, which asks for ${MILK}:2, ${WATER}:3` },
    ]);
    expect(issuesOf(() => approvedPart(selection([{ productId: MILK, quantity: 0.0000001 }])))).toEqual([
      { path: `productId ${MILK}`, message: 'quantity 1e-7 is less than the smallest quantity counted, 0.000001' },
    ]);
  });
});
