import { describe, it } from 'vitest';
import { ResolveRecipientRequest, ResolveRecipientResponse } from '../../src/contract/recipient.js';
import { expectIssue, expectValid } from './issues.js';

describe('ResolveRecipientRequest', () => {
  it.each([
    { email: 'customer@example.com' },
    { phone: '+4915112345678' },
    { iban: 'DE89370400440532013000' },
    { cardNumber: '4111111111111111' },
    { serviceReceiptId: 'rcpt-1' },
    { email: 'customer@example.com', phone: '+4915112345678' },
  ])('accepts %j', (request) => {
    expectValid(ResolveRecipientRequest, request);
  });

  it('needs at least one way to identify the customer', () => {
    expectIssue(ResolveRecipientRequest, {}, '', 'give at least one of email, phone, iban, cardNumber, serviceReceiptId');
    expectIssue(ResolveRecipientRequest, { name: 'A. Customer' }, '', 'give at least one of');
  });

  it.each([
    ['email', 'not-an-email', 'must be an email address'],
    ['phone', '0151 12345678', 'E.164'],
    ['phone', '4915112345678', 'E.164'],
    ['iban', 'DE89 3704 0044 0532 0130 00', 'IBAN in capitals without spaces'],
    ['iban', 'de89370400440532013000', 'IBAN'],
    ['cardNumber', '4111 1111 1111 1111', '12 to 19 digits'],
    ['cardNumber', '4111', '12 to 19 digits'],
    ['serviceReceiptId', '', 'must not be empty'],
  ])('refuses %s %j', (member, value, message) => {
    expectIssue(ResolveRecipientRequest, { [member]: value }, member, message);
  });
});

describe('ResolveRecipientResponse', () => {
  const response = {
    matchId: 'm-1',
    recipients: [{ recipientId: 'd-1', receiverType: 'DEVICE', publicKey: 'MIIBIjAN', keyAlgorithm: 'RSA_2048' }],
    acceptedFormats: ['SERVICE', 'UBL_CREDIT_NOTE'],
  };

  it('parses a match, tolerating receiver types, algorithms and formats it does not know', () => {
    expectValid(ResolveRecipientResponse, response);
    expectValid(ResolveRecipientResponse, {
      ...response,
      recipients: [{ recipientId: 'd-2', receiverType: 'MAILBOX', publicKey: 'x', keyAlgorithm: 'RSA_4096' }],
      acceptedFormats: ['PDF'],
    });
  });

  it.each(['matchId', 'recipients', 'acceptedFormats'])('requires %s', (member) => {
    expectIssue(ResolveRecipientResponse, { ...response, [member]: undefined }, member, 'is required');
  });

  it('requires each recipient\'s id and key', () => {
    expectIssue(ResolveRecipientResponse, { ...response, recipients: [{ receiverType: 'DEVICE', keyAlgorithm: 'RSA_2048' }] }, 'recipients.0.recipientId', 'is required');
    expectIssue(ResolveRecipientResponse, { ...response, recipients: [{ recipientId: 'd', receiverType: 'DEVICE', keyAlgorithm: 'RSA_2048' }] }, 'recipients.0.publicKey', 'is required');
  });
});
