import { describe, expect, it } from 'vitest';
import {
  ReceiptEnvelope,
  WebhookEvent,
  WebhookSubscription,
  WebhookSubscriptionRequest,
  isKnownWebhookEvent,
} from '../../src/contract/webhook.js';
import { expectIssue, expectValid } from './issues.js';

const returnRequested = {
  event: 'RETURN_REQUESTED',
  data: {
    creditNoteInitiationRequest: {
      clientId: null,
      companyId: 'c0ffee00-1b2c-4d5e-8f90-123456789abc',
      created_at: '2024-05-01T12:00:00Z',
      serviceReceiptId: 'rcpt-1',
      publicKey: 'MIIB',
      encryptedCreditNoteInitiationRequest: 'AAAA',
      encryptedSymmetricKey: 'BBBB',
    },
  },
};

const creditNoteCreated = {
  event: 'CREDIT_NOTE_CREATED',
  data: {
    encryptedCreditNote: {
      clientId: 'cid',
      companyId: 'c0ffee00-1b2c-4d5e-8f90-123456789abc',
      created_at: '2024-05-01T12:00:00Z',
      serviceReceiptId: 'cn-1',
      encryptedEnvelope: 'AAAA',
      encryptedEnvelopeKey: 'BBBB',
      publicKey: 'MIIB',
      recipientKeyAlgorithm: 'RSA_2048',
      envelopeVersion: 1,
      receiptGeneratorVersion: '1.0.0',
      finalHash: 'f'.repeat(64),
    },
  },
};

describe('WebhookSubscriptionRequest', () => {
  const request = { name: 'returns', notificationUrl: 'https://shop.example/webhooks', events: ['RETURN_REQUESTED', 'CREDIT_NOTE_CREATED'] };

  it('accepts known and unknown event names', () => {
    expectValid(WebhookSubscriptionRequest, request);
    expectValid(WebhookSubscriptionRequest, { ...request, events: ['RECEIPT_DELIVERED'], notificationUrl: 'http://127.0.0.1:8080/hook' });
  });

  it.each(['name', 'notificationUrl', 'events'])('requires %s', (member) => {
    expectIssue(WebhookSubscriptionRequest, { ...request, [member]: undefined }, member, 'is required');
  });

  it('needs an http(s) URL and at least one event', () => {
    expectIssue(WebhookSubscriptionRequest, { ...request, notificationUrl: 'ftp://shop.example/x' }, 'notificationUrl', 'http or https URL');
    expectIssue(WebhookSubscriptionRequest, { ...request, notificationUrl: 'shop.example' }, 'notificationUrl', 'http or https URL');
    expectIssue(WebhookSubscriptionRequest, { ...request, events: [] }, 'events', 'at least one entry');
    expectIssue(WebhookSubscriptionRequest, { ...request, events: [''] }, 'events.0', 'must not be empty');
  });

  it('the create answer carries the secret once', () => {
    const created = { id: 'wh-1', ...request, secret: 'whsec_abc', createdAt: '2024-05-01T12:00:00Z' };
    expectValid(WebhookSubscription, created);
    expectIssue(WebhookSubscription, { ...created, secret: undefined }, 'secret', 'is required');
  });
});

describe('WebhookEvent', () => {
  it('parses RETURN_REQUESTED and narrows on its name', () => {
    const event = WebhookEvent.parse(returnRequested);
    expect(isKnownWebhookEvent(event)).toBe(true);
    if (isKnownWebhookEvent(event) && event.event === 'RETURN_REQUESTED') {
      expect(event.data.creditNoteInitiationRequest.serviceReceiptId).toBe('rcpt-1');
    }
  });

  it('parses CREDIT_NOTE_CREATED', () => {
    const event = WebhookEvent.parse(creditNoteCreated);
    if (!isKnownWebhookEvent(event) || event.event !== 'CREDIT_NOTE_CREATED') throw new Error('not narrowed');
    expect(event.data.encryptedCreditNote.envelopeVersion).toBe(1);
  });

  it('tolerates absent clientId, companyId, userId and publicKey in RETURN_REQUESTED', () => {
    const { clientId: _c, companyId: _o, publicKey: _p, ...rest } = returnRequested.data.creditNoteInitiationRequest;
    expectValid(WebhookEvent, { event: 'RETURN_REQUESTED', data: { creditNoteInitiationRequest: rest } });
  });

  it('parses an event it does not know, keeping its data', () => {
    const event = WebhookEvent.parse({ event: 'RECEIPT_DELIVERED', data: { anything: [1, 2] } });
    expect(isKnownWebhookEvent(event)).toBe(false);
    expect(event.data).toEqual({ anything: [1, 2] });
  });

  it('reports what is wrong in the data of a known event', () => {
    const broken = { ...returnRequested, data: { creditNoteInitiationRequest: { ...returnRequested.data.creditNoteInitiationRequest, serviceReceiptId: undefined } } };
    expectIssue(WebhookEvent, broken, 'data.creditNoteInitiationRequest.serviceReceiptId', 'is required');
    expectIssue(WebhookEvent, { event: 'CREDIT_NOTE_CREATED', data: {} }, 'data.encryptedCreditNote', 'is required');
    expectIssue(
      WebhookEvent,
      { event: 'CREDIT_NOTE_CREATED', data: { encryptedCreditNote: { ...creditNoteCreated.data.encryptedCreditNote, envelopeVersion: 1.5 } } },
      'data.encryptedCreditNote.envelopeVersion',
      'must be a whole number',
    );
  });

  it('requires an event name', () => {
    expectIssue(WebhookEvent, { data: {} }, 'event', 'is required');
  });
});

describe('ReceiptEnvelope', () => {
  it('has SERVICE always and UBL_CREDIT_NOTE when asked for', () => {
    expectValid(ReceiptEnvelope, { envelopeVersion: 1, documents: { SERVICE: { id: { value: 'CN-1' } } } });
    expectValid(ReceiptEnvelope, { envelopeVersion: 1, documents: { SERVICE: {}, UBL_CREDIT_NOTE: {} } });
    expectIssue(ReceiptEnvelope, { envelopeVersion: 1, documents: { UBL_CREDIT_NOTE: {} } }, 'documents.SERVICE', 'is required');
    expectIssue(ReceiptEnvelope, { documents: { SERVICE: {} } }, 'envelopeVersion', 'is required');
  });
});
