import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UblDocument } from '../../src/contract/template.js';
import { documentHash } from '../../src/crypto/hash.js';
import { FOODS, RETAIL, RETAIL_STORE, receiptEntries, startHarness, templateRequest, type Harness, type Resolved } from './receipt-helpers.js';

describe('POST /receipt/template and /credit-note/template', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    await h.call('POST', '/sandbox/reset');
    token = h.token();
  });

  const template = (body: unknown, as = token, path = '/receipt/template') => h.call<UblDocument>('POST', path, { token: as, body });

  it('answers 201 with the UBL document of the calling company, a fresh nonce and no warnings', async () => {
    const a = await template(templateRequest());
    const b = await template(templateRequest());
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      id: { value: 'R-2030-0001' },
      accountingSupplierParty: { partyIdentification: [{ id: { value: RETAIL } }] },
      accountingCustomerParty: {},
      warnings: [],
    });
    expect(a.body.verificationNonce).toMatch(/^[\w-]{22}$/);
    expect(a.body.verificationNonce).not.toBe(b.body.verificationNonce);
    const foods = await template(templateRequest(), h.token(FOODS));
    expect(foods.body.accountingSupplierParty).toMatchObject({ partyIdentification: [{ id: { value: FOODS } }], partyName: { name: 'Sample Foods GmbH' } });
  });

  it.each([
    [
      'a tax sum that is not totalTaxAmount',
      templateRequest({ totalTaxAmount: 3.36, totalAmount: 36.76 }),
      [{ path: 'totalTaxAmount', message: 'must equal the sum of taxes[].amount: it is 3.36 EUR, the taxes add up to 3.35 EUR' }],
    ],
    ['no products', templateRequest({ products: [] }), [{ path: 'products', message: 'must have at least one entry' }]],
    [
      'an unknown unit code',
      { ...templateRequest(), products: [{ ...templateRequest().products[0], unitCode: 'BOTTLE' }] },
      [{ path: 'products.0.unitCode', message: 'unknown unit code "BOTTLE"; see the unit code list' }],
    ],
    [
      'a 256-character identifier',
      { ...templateRequest(), products: [templateRequest().products[0], { ...templateRequest().products[1], identifier: 'x'.repeat(256) }] },
      [{ path: 'products.1.identifier', message: 'must be at most 255 characters' }],
    ],
    ['a date without a time zone', templateRequest({ issueDate: '2030-06-01T14:00:00' }), [{ path: 'issueDate' }]],
    ['a currency in lower case', templateRequest({ currency: 'eur' }), [{ path: 'currency' }]],
  ])('refuses %s: 400 validation_failed naming the field', async (_what, body, details) => {
    const { status, body: error } = await template(body);
    expect(status).toBe(400);
    expect(error).toMatchObject({ error: 'validation_failed', error_description: 'the request body is invalid', details });
    expect((error as { details: unknown[] }).details).toHaveLength(details.length);
  });

  it('accepts a 255-character identifier', async () => {
    const body = { ...templateRequest(), products: [{ ...templateRequest().products[0], identifier: 'x'.repeat(255) }], invoiceSubtotal: 25 };
    expect((await template({ ...body, totalBeforeTax: 25, totalAmount: 26.75, totalTaxAmount: 1.75, taxes: [body.taxes[0]] })).status).toBe(201);
  });

  it('warns about a total that is not totalBeforeTax + totalTaxAmount, and still issues the template', async () => {
    const { status, body } = await template(templateRequest({ totalAmount: 40 }));
    expect(status).toBe(201);
    expect(body.warnings).toEqual(['totalAmount 40.00 EUR is not totalBeforeTax + totalTaxAmount (33.40 EUR + 3.35 EUR = 36.75 EUR)']);
  });

  it('needs write_receipts, and a permitted store from a SELECTED_STORES Grant, before looking at the body', async () => {
    expect((await template({})).status).toBe(400);
    expect((await template({}, h.token(RETAIL, { scopes: ['read_stores'] }))).body).toMatchObject({ error: 'insufficient_scope' });
    const selected = h.token(RETAIL, { storeIds: [RETAIL_STORE] });
    expect((await template({}, selected)).body).toMatchObject({ error: 'grant_not_permitting' });
    expect((await template(templateRequest({ storeId: '50000000-0000-4000-8000-000000000012' }), selected)).body).toMatchObject({
      error: 'grant_not_permitting',
    });
    expect((await template(templateRequest({ storeId: RETAIL_STORE }), selected)).status).toBe(201);
  });

  it('issues credit note templates with the original document reference and credited quantities', async () => {
    const { status, body } = await template({ ...templateRequest({ documentNumber: 'CN-1' }), originatorDocumentReference: 'R-2030-0001' }, token, '/credit-note/template');
    expect(status).toBe(201);
    expect(body).toMatchObject({
      id: { value: 'CN-1' },
      originatorDocumentReference: [{ id: { value: 'R-2030-0001' } }],
      creditNoteLine: [{ creditedQuantity: { value: 2, unitCode: 'KGM' } }, { creditedQuantity: { value: 1, unitCode: 'C62' } }],
      accountingCustomerParty: {},
    });
    const missing = await template(templateRequest(), token, '/credit-note/template');
    expect(missing.body).toMatchObject({ error: 'validation_failed', details: [{ path: 'originatorDocumentReference', message: 'is required' }] });
  });

  describe('templateHash', () => {
    const submit = async (templateHash: string, as = token) => {
      const resolved = await h.call<Resolved>('POST', '/recipient/resolve', { token: as, body: { email: 'bob@example.com' } });
      const doc = (await template(templateRequest())).body;
      return h.call('POST', '/receipt/encrypted', {
        token: as,
        body: { matchId: resolved.body.matchId, templateHash, encryptedReceipts: receiptEntries(doc, resolved.body.recipients) },
      });
    };

    it('is remembered for the company: the hash of the response body is accepted', async () => {
      const { body } = await template(templateRequest());
      expect((await submit(documentHash(body))).status).toBe(201);
    });

    it('answers 400 unknown_template for a hash never issued, one of another company, or a credit note template', async () => {
      const unknown = await submit('0'.repeat(64));
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ error: 'unknown_template', details: [{ path: 'templateHash' }] });

      const theirs = (await template(templateRequest(), h.token(FOODS))).body;
      expect((await submit(documentHash(theirs))).body).toMatchObject({ error: 'unknown_template' });

      const creditNote = (await template({ ...templateRequest(), originatorDocumentReference: 'R-1' }, token, '/credit-note/template')).body;
      expect((await submit(documentHash(creditNote))).body).toMatchObject({ error: 'unknown_template' });
    });

    it('is forgotten on reset', async () => {
      const { body } = await template(templateRequest());
      await h.call('POST', '/sandbox/reset');
      token = h.token();
      expect((await submit(documentHash(body))).body).toMatchObject({ error: 'unknown_template' });
    });
  });
});
