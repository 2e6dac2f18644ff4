import { describe, expect, it } from 'vitest';
import {
  CreditNoteSubmission,
  CreditNoteSubmissionResult,
  EncryptedCreditNoteEntry,
} from '../../src/contract/credit-note.js';
import {
  CustomerDetails,
  EncryptedReceiptEntry,
  ReceiptEmailRequest,
  ReceiptEmailResponse,
  ReceiptSubmission,
  ReceiptSubmissionResult,
} from '../../src/contract/receipt.js';
import { expectIssue, expectValid } from './issues.js';

const hash = 'a'.repeat(64);
const b64 = 'QUJD';

const creditNoteEntry = {
  recipientId: 'device-1',
  encryptedCreditNote: b64,
  encryptedSymmetricKey: b64,
  encryptedCustomerDetails: b64,
  encryptedCustomerAesKey: b64,
  publicKey: b64,
  supplierPartyId: 'supplier-1',
};

describe('EncryptedCreditNoteEntry', () => {
  it('accepts the required members alone, and every optional one', () => {
    expectValid(EncryptedCreditNoteEntry, creditNoteEntry);
    expectValid(EncryptedCreditNoteEntry, {
      ...creditNoteEntry,
      creditNoteId: '6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5',
      originalReceiptId: '7f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5',
      receiverType: 'WEBHOOK',
      finalHash: hash,
    });
  });

  it.each(Object.keys(creditNoteEntry))('requires %s', (member) => {
    expectIssue(EncryptedCreditNoteEntry, { ...creditNoteEntry, [member]: undefined }, member, 'is required');
  });

  it.each(['encryptedCreditNote', 'encryptedSymmetricKey', 'encryptedCustomerDetails', 'encryptedCustomerAesKey', 'publicKey'])(
    '%s must be padded standard Base64',
    (member) => {
      expectIssue(EncryptedCreditNoteEntry, { ...creditNoteEntry, [member]: 'QUJ' }, member, 'Base64');
      expectIssue(EncryptedCreditNoteEntry, { ...creditNoteEntry, [member]: 'QU-_' }, member, 'Base64');
    },
  );

  it('checks the optional members', () => {
    expectIssue(EncryptedCreditNoteEntry, { ...creditNoteEntry, receiverType: 'EMAIL' }, 'receiverType', 'must be one of "DEVICE", "WEBHOOK"');
    expectIssue(EncryptedCreditNoteEntry, { ...creditNoteEntry, creditNoteId: 'cn-1' }, 'creditNoteId', 'must be a UUID');
    expectIssue(EncryptedCreditNoteEntry, { ...creditNoteEntry, originalReceiptId: 'r-1' }, 'originalReceiptId', 'must be a UUID');
    expectIssue(EncryptedCreditNoteEntry, { ...creditNoteEntry, finalHash: 'A'.repeat(64) }, 'finalHash', 'lowercase hex SHA-256');
  });
});

describe('CreditNoteSubmission', () => {
  const submission = { matchId: 'm-1', parentServiceReceiptId: 'rcpt-1', encryptedCreditNotes: [creditNoteEntry], templateHash: hash };

  it('accepts a submission', () => {
    expectValid(CreditNoteSubmission, submission);
  });

  it.each(Object.keys(submission))('requires %s', (member) => {
    expectIssue(CreditNoteSubmission, { ...submission, [member]: undefined }, member, 'is required');
  });

  it('needs an entry, checks each, and a hex templateHash', () => {
    expectIssue(CreditNoteSubmission, { ...submission, encryptedCreditNotes: [] }, 'encryptedCreditNotes', 'at least one entry');
    expectIssue(CreditNoteSubmission, { ...submission, encryptedCreditNotes: [{ ...creditNoteEntry, recipientId: '' }] }, 'encryptedCreditNotes.0.recipientId');
    expectIssue(CreditNoteSubmission, { ...submission, templateHash: 'abc' }, 'templateHash', 'lowercase hex SHA-256');
  });

  it('parses the result', () => {
    const result = { serviceReceiptId: 'cn-1', parentServiceReceiptId: 'rcpt-1', templateHash: hash, createdAt: '2024-05-01T12:00:00Z' };
    expectValid(CreditNoteSubmissionResult, result);
    expectIssue(CreditNoteSubmissionResult, { ...result, parentServiceReceiptId: undefined }, 'parentServiceReceiptId', 'is required');
  });
});

describe('receipts', () => {
  const { encryptedCreditNote: _dropped, ...shared } = creditNoteEntry;
  const receiptEntry = { ...shared, encryptedReceipt: b64 };

  it('a receipt entry carries encryptedReceipt instead of encryptedCreditNote', () => {
    expectValid(EncryptedReceiptEntry, receiptEntry);
    expectIssue(EncryptedReceiptEntry, creditNoteEntry, 'encryptedReceipt', 'is required');
    expect(EncryptedReceiptEntry.parse({ ...receiptEntry, extra: 1 })).toMatchObject({ extra: 1 });
  });

  it('a submission needs matchId, templateHash and one entry', () => {
    const submission = { matchId: 'm-1', templateHash: hash, encryptedReceipts: [receiptEntry] };
    expectValid(ReceiptSubmission, submission);
    expectIssue(ReceiptSubmission, { ...submission, matchId: undefined }, 'matchId', 'is required');
    expectIssue(ReceiptSubmission, { ...submission, encryptedReceipts: [] }, 'encryptedReceipts', 'at least one entry');
    expectIssue(ReceiptSubmission, { ...submission, encryptedReceipts: [{ ...receiptEntry, encryptedReceipt: '%%' }] }, 'encryptedReceipts.0.encryptedReceipt', 'Base64');
    expectValid(ReceiptSubmissionResult, { serviceReceiptId: 'r-1', templateHash: hash, createdAt: '2024-05-01T12:00:00Z' });
  });

  it('an email request needs a recipient address and the template', () => {
    const request = { to: 'customer@example.com', template: { id: { value: 'R-1' } }, customer: { name: 'A. Customer' } };
    expectValid(ReceiptEmailRequest, request);
    expectIssue(ReceiptEmailRequest, { ...request, to: 'customer' }, 'to', 'must be an email address');
    expectIssue(ReceiptEmailRequest, { ...request, template: undefined }, 'template', 'is required');
    expectValid(ReceiptEmailResponse, { messageId: 'msg-1', status: 'QUEUED' });
  });

  it('customer details are all optional, but well-formed', () => {
    expectValid(CustomerDetails, {});
    expectValid(CustomerDetails, { name: 'A. Customer', email: 'a@example.com', phone: '+4915112345678', address: 'Main St 1\n10115 Berlin' });
    expectIssue(CustomerDetails, { phone: '0151' }, 'phone', 'E.164');
    expectIssue(CustomerDetails, { email: 'a@' }, 'email', 'email address');
  });
});
