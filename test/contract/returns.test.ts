import { describe, expect, it } from 'vitest';
import {
  KNOWN_REASON_CODES,
  QueueItem,
  QueueItemStatus,
  ReturnRequest,
  StatusUpdateRequest,
  StatusUpdateResponse,
  isKnownReasonCode,
} from '../../src/contract/returns.js';
import { expectIssue, expectValid } from './issues.js';

function returnRequest(changes: Record<string, unknown> = {}): Record<string, unknown> {
  const request: Record<string, unknown> = {
    serviceReceiptId: 'rcpt-1',
    receiptId: 'R-2024-0042',
    lineItems: [{ productId: 'TEA-001', quantity: 1, reasonCode: 'DAMAGED' }],
    refundPreference: 'ORIGINAL_PAYMENT_METHOD',
    ...changes,
  };
  for (const [key, value] of Object.entries(changes)) if (value === undefined) delete request[key];
  return request;
}

function withLine(changes: Record<string, unknown>): Record<string, unknown> {
  const line: Record<string, unknown> = { productId: 'TEA-001', quantity: 1, reasonCode: 'DAMAGED', ...changes };
  for (const [key, value] of Object.entries(changes)) if (value === undefined) delete line[key];
  return returnRequest({ lineItems: [line] });
}

describe('ReturnRequest', () => {
  it('accepts a minimal request and keeps unknown members', () => {
    expect(ReturnRequest.parse(returnRequest({ deviceInfo: 'x' }))).toMatchObject({ deviceInfo: 'x' });
  });

  it.each(['serviceReceiptId', 'receiptId', 'lineItems', 'refundPreference'])('requires %s', (member) => {
    expectIssue(ReturnRequest, returnRequest({ [member]: undefined }), member, 'is required');
  });

  it.each(['serviceReceiptId', 'receiptId'])('refuses an empty %s', (member) => {
    expectIssue(ReturnRequest, returnRequest({ [member]: '' }), member, 'must not be empty');
  });

  it('limits customerNote to 1,000 characters', () => {
    expectValid(ReturnRequest, returnRequest({ customerNote: 'n'.repeat(1000) }));
    expectIssue(ReturnRequest, returnRequest({ customerNote: 'n'.repeat(1001) }), 'customerNote', 'must be at most 1000 characters');
  });

  it('needs at least one line item', () => {
    expectIssue(ReturnRequest, returnRequest({ lineItems: [] }), 'lineItems', 'must have at least one entry');
  });

  describe('lineItems[]', () => {
    it.each(['productId', 'quantity', 'reasonCode'])('requires %s', (member) => {
      expectIssue(ReturnRequest, withLine({ [member]: undefined }), `lineItems.0.${member}`, 'is required');
    });

    it('takes a productId of 1 to 255 characters, repeated across lines', () => {
      expectValid(ReturnRequest, withLine({ productId: 'p'.repeat(255) }));
      expectValid(
        ReturnRequest,
        returnRequest({
          lineItems: [
            { productId: 'TEA-001', quantity: 1, reasonCode: 'DAMAGED' },
            { productId: 'TEA-001', quantity: 1, reasonCode: 'DEFECTIVE' },
          ],
        }),
      );
      expectIssue(ReturnRequest, withLine({ productId: '' }), 'lineItems.0.productId', 'must not be empty');
      expectIssue(ReturnRequest, withLine({ productId: 'p'.repeat(256) }), 'lineItems.0.productId', 'must be at most 255 characters');
    });

    it('takes a positive quantity', () => {
      expectValid(ReturnRequest, withLine({ quantity: 0.5 }));
      expectIssue(ReturnRequest, withLine({ quantity: 0 }), 'lineItems.0.quantity', 'must be greater than 0');
      expectIssue(ReturnRequest, withLine({ quantity: -2 }), 'lineItems.0.quantity', 'must be greater than 0');
      expectIssue(ReturnRequest, withLine({ quantity: '1' }), 'lineItems.0.quantity', 'must be a number');
    });

    it('accepts every known reason code, and unknown ones so that they can be shown', () => {
      for (const reasonCode of KNOWN_REASON_CODES) expectValid(ReturnRequest, withLine({ reasonCode }));
      expectValid(ReturnRequest, withLine({ reasonCode: 'ARRIVED_LATE' }));
      expectIssue(ReturnRequest, withLine({ reasonCode: '' }), 'lineItems.0.reasonCode', 'must not be empty');
      expectIssue(ReturnRequest, withLine({ reasonCode: 3 }), 'lineItems.0.reasonCode', 'must be a string');
    });

    it('limits reasonDescription to 1,000 characters', () => {
      expectValid(ReturnRequest, withLine({ reasonDescription: 'd'.repeat(1000) }));
      expectIssue(
        ReturnRequest,
        withLine({ reasonDescription: 'd'.repeat(1001) }),
        'lineItems.0.reasonDescription',
        'must be at most 1000 characters',
      );
    });

    it('reports the index of the faulty line', () => {
      const lines = [
        { productId: 'A', quantity: 1, reasonCode: 'DAMAGED' },
        { productId: 'B', quantity: 0, reasonCode: 'DAMAGED' },
      ];
      expectIssue(ReturnRequest, returnRequest({ lineItems: lines }), 'lineItems.1.quantity');
    });
  });

  describe('refundPreference and refundBankAccount', () => {
    it.each(['ORIGINAL_PAYMENT_METHOD', 'STORE_CREDIT'])('%s takes no bank account', (refundPreference) => {
      expectValid(ReturnRequest, returnRequest({ refundPreference }));
      expectValid(ReturnRequest, returnRequest({ refundPreference, refundBankAccount: null }));
      expectIssue(
        ReturnRequest,
        returnRequest({ refundPreference, refundBankAccount: { iban: 'DE89370400440532013000' } }),
        'refundBankAccount',
        `must be absent when refundPreference is ${refundPreference}`,
      );
    });

    it('BANK_TRANSFER requires a bank account, whose fields are open', () => {
      expectValid(
        ReturnRequest,
        returnRequest({ refundPreference: 'BANK_TRANSFER', refundBankAccount: { iban: 'DE89370400440532013000', accountHolder: 'A. Customer', sortCode: '1' } }),
      );
      expectIssue(ReturnRequest, returnRequest({ refundPreference: 'BANK_TRANSFER' }), 'refundBankAccount', 'is required when refundPreference is BANK_TRANSFER');
      expectIssue(ReturnRequest, returnRequest({ refundPreference: 'BANK_TRANSFER', refundBankAccount: null }), 'refundBankAccount', 'is required');
      expectIssue(ReturnRequest, returnRequest({ refundPreference: 'BANK_TRANSFER', refundBankAccount: 'DE89' }), 'refundBankAccount', 'must be an object');
    });

    it('refuses an unknown preference', () => {
      expectIssue(
        ReturnRequest,
        returnRequest({ refundPreference: 'CASH' }),
        'refundPreference',
        'must be one of "ORIGINAL_PAYMENT_METHOD", "BANK_TRANSFER", "STORE_CREDIT"',
      );
    });

    it('reports a missing bank account together with problems elsewhere', () => {
      const request = returnRequest({ refundPreference: 'BANK_TRANSFER', lineItems: [] });
      expectIssue(ReturnRequest, request, 'lineItems');
      expectIssue(ReturnRequest, request, 'refundBankAccount');
    });
  });
});

describe('isKnownReasonCode', () => {
  it('knows the codes of docs/interface-decisions.md#reason-codes only', () => {
    expect(KNOWN_REASON_CODES.every(isKnownReasonCode)).toBe(true);
    expect(isKnownReasonCode('ARRIVED_LATE')).toBe(false);
  });
});

describe('QueueItem', () => {
  const item = {
    requestId: '9b2f1c1e-8a4d-4e55-9a37-0c1d2e3f4a5b',
    serviceReceiptId: 'rcpt-1',
    encryptedSymmetricKey: 'AAAA',
    publicKey: 'BBBB',
    status: 'PENDING',
    createdAt: '2024-05-01T12:00:00Z',
    encryptedCreditNoteInitiationRequest: 'CCCC',
  };

  it('parses every known status, and an unknown one from a newer service', () => {
    for (const status of QueueItemStatus.options) expectValid(QueueItem, { ...item, status });
    expectValid(QueueItem, { ...item, status: 'ESCALATED' });
  });

  it('tolerates a missing publicKey and ciphertext that is not Base64 (that item fails to decrypt later)', () => {
    const { publicKey: _dropped, ...withoutKey } = item;
    expectValid(QueueItem, { ...withoutKey, encryptedCreditNoteInitiationRequest: 'not base64!' });
  });

  it.each(['requestId', 'serviceReceiptId', 'encryptedSymmetricKey', 'status', 'createdAt', 'encryptedCreditNoteInitiationRequest'])(
    'requires %s',
    (member) => {
      const { [member as keyof typeof item]: _dropped, ...rest } = item;
      expectIssue(QueueItem, rest, member, 'is required');
    },
  );
});

describe('StatusUpdateRequest', () => {
  it.each(['ACCEPTED', 'PARTIALLY_ACCEPTED', 'REJECTED', 'COMPLETED'])('accepts %s', (status) => {
    expectValid(StatusUpdateRequest, { status });
  });

  it.each(['PENDING', 'CANCELLED', 'accepted', 'DONE'])('refuses %s', (status) => {
    expectIssue(StatusUpdateRequest, { status }, 'status', 'must be one of "ACCEPTED", "PARTIALLY_ACCEPTED", "REJECTED", "COMPLETED"');
  });

  it('requires status', () => {
    expectIssue(StatusUpdateRequest, {}, 'status', 'is required');
  });
});

describe('StatusUpdateResponse', () => {
  it('has requestId, status and updatedAt', () => {
    expectValid(StatusUpdateResponse, { requestId: 'r', status: 'ACCEPTED', updatedAt: '2024-05-01T12:00:00Z' });
    expectIssue(StatusUpdateResponse, { requestId: 'r', status: 'ACCEPTED' }, 'updatedAt', 'is required');
  });
});
