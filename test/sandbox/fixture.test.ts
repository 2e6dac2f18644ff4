import { constants, createPrivateKey, privateDecrypt, publicEncrypt, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { bundledFixturePath, loadFixture, parseFixture, type Fixture } from '../../src/sandbox/fixture.js';

const root = join(import.meta.dirname, '..', '..');
const raw = () => JSON.parse(readFileSync(join(root, 'fixtures', 'sandbox.json'), 'utf8')) as Fixture;

function ibanValid(iban: string): boolean {
  const digits = `${iban.slice(4)}${iban.slice(0, 4)}`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let remainder = 0;
  for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  return remainder === 1;
}

function luhnValid(number: string): boolean {
  let sum = 0;
  for (const [i, d] of [...number].reverse().entries()) {
    const n = Number(d) * (i % 2 === 1 ? 2 : 1);
    sum += n > 9 ? n - 9 : n;
  }
  return sum % 10 === 0;
}

function issuesOf(fixture: unknown): string[] {
  try {
    parseFixture(fixture);
  } catch (error) {
    if (error instanceof ValidationError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

describe('the bundled fixture', () => {
  it('is found from src/, dist/ and dist/chunks/', () => {
    const expected = join(root, 'fixtures', 'sandbox.json');
    expect(bundledFixturePath()).toBe(expected);
    expect(bundledFixturePath(pathToFileURL(join(root, 'dist', 'main.cjs')))).toBe(expected);
    expect(bundledFixturePath(pathToFileURL(join(root, 'dist', 'chunks', 'chunk-X.cjs')))).toBe(expected);
  });

  it('validates', async () => {
    const fixture = await loadFixture(bundledFixturePath());
    expect(fixture.companies).toHaveLength(2);
  });

  it('has companies with active and inactive stores, an API key each, and one administrator for both', async () => {
    const fixture = await loadFixture(bundledFixturePath());
    for (const company of fixture.companies) {
      expect(company.stores.length).toBeGreaterThanOrEqual(2);
      expect(company.stores.some((s) => s.isActive)).toBe(true);
      expect(company.stores.some((s) => !s.isActive)).toBe(true);
      expect(company.apiKey).toMatch(/^sk_sandbox_/);
    }
    expect(fixture.users).toHaveLength(1);
    expect(fixture.users[0]?.companyIds).toEqual(fixture.companies.map((c) => c.id));
  });

  it('has an approved, a pending and a rejected client application with the loopback redirect URI', async () => {
    const fixture = await loadFixture(bundledFixturePath());
    const byStatus = Object.fromEntries(fixture.clientApplications.map((a) => [a.status, a]));
    expect(byStatus.Approved).toMatchObject({
      id: 'app_sandbox_pos',
      name: 'Sandbox POS',
      clientSecret: expect.stringMatching(/^cs_sandbox_/),
      redirectUris: ['http://127.0.0.1:8765/callback'],
    });
    expect(byStatus.Pending?.clientSecret).toBeNull();
    expect(byStatus.Rejected?.clientSecret).toBeNull();
  });

  it('has customers with valid identifiers and devices, one with exactly 3 devices', async () => {
    const fixture = await loadFixture(bundledFixturePath());
    expect(fixture.customers.length).toBeGreaterThanOrEqual(3);
    for (const customer of fixture.customers) {
      expect(ibanValid(customer.iban), customer.iban).toBe(true);
      expect(luhnValid(customer.cardNumber), customer.cardNumber).toBe(true);
      expect(customer.phone).toMatch(/^\+[1-9]\d{6,14}$/);
      expect(customer.devices.length).toBeGreaterThanOrEqual(1);
      expect(customer.devices.length).toBeLessThanOrEqual(3);
    }
    expect(fixture.customers.some((c) => c.devices.length === 3)).toBe(true);
    expect(fixture.customers.some((c) => c.acceptedFormats.join() === 'SERVICE,UBL_CREDIT_NOTE')).toBe(true);
  });

  it('gives every device an RSA-2048 pair whose private key opens what its public key sealed', async () => {
    const fixture = await loadFixture(bundledFixturePath());
    for (const device of fixture.customers.flatMap((c) => c.devices)) {
      const publicKey = createPublicKey({ key: Buffer.from(device.publicKey, 'base64'), format: 'der', type: 'spki' });
      expect(publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
      const sealed = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from('k'));
      const opened = privateDecrypt(
        { key: createPrivateKey(device.privateKeyPem), padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
        sealed,
      );
      expect(opened.toString()).toBe('k');
    }
  });
});

describe('a fixture that does not hold together', () => {
  it('is refused, naming the field', () => {
    const fixture = raw();
    const [a, b] = fixture.companies;
    const [alice, bob] = fixture.customers;
    if (!a || !b || !alice || !bob) throw new Error('fixture too small');
    b.stores[0] = { ...b.stores[0]!, id: a.stores[0]!.id };
    alice.devices[0] = { ...alice.devices[0]!, privateKeyPem: bob.devices[0]!.privateKeyPem };
    fixture.clientApplications[1] = { ...fixture.clientApplications[1]!, clientSecret: 'cs_sandbox_should_not_exist' };
    fixture.clientApplications[2] = { ...fixture.clientApplications[2]!, ownerCompanyId: 'c0000000-0000-4000-8000-000000000099' };
    expect(issuesOf(fixture)).toEqual([
      expect.stringMatching(/^companies\.1\.stores\.0\.id: id ".*" is used twice$/),
      expect.stringMatching(/^clientApplications\.1\.clientSecret: /),
      expect.stringMatching(/^clientApplications\.2\.ownerCompanyId: no company/),
      'customers.0.devices.0.privateKeyPem: is not the private key of publicKey',
    ]);
  });

  it('is refused for its shape', () => {
    const fixture = raw();
    (fixture.customers[0] as { phone: string }).phone = '0151 000';
    (fixture.customers[1] as { acceptedFormats: string[] }).acceptedFormats = ['UBL_CREDIT_NOTE'];
    expect(issuesOf(fixture).map((i) => i.split(':')[0])).toEqual(['customers.0.phone', 'customers.1.acceptedFormats']);
  });
});
