// The sandbox's seed data (fixtures/sandbox.json, written by scripts/make-fixture.mjs):
// its schema, and loading it from a file. A fixture that does not hold together (a store
// id used twice, a device whose private key is not its public key's partner) is refused
// at start, naming the field, rather than surfacing later as a confusing 404 or a failed
// decryption.
import { readBounded } from '../io/bounded-read.js';
import { join } from 'node:path';
import * as z from '../contract/zod.js';
import { parseOrThrow } from '../contract/validate.js';
import { publicKeyOfPrivate } from '../crypto/keys.js';
import { UsageError } from '../errors.js';
import { packageFile } from '../package-root.js';

const Id = z.string().min(1);
const Base64 = z.base64();
const PrivateKeyPem = z.string().startsWith('-----BEGIN PRIVATE KEY-----', 'must be a PKCS#8 PEM private key');

export const FixtureStore = z.object({
  id: z.uuid(),
  storeName: z.string().min(1),
  storeCode: z.string().min(1),
  isActive: z.boolean(),
});
export type FixtureStore = z.infer<typeof FixtureStore>;

export const FixtureCompany = z.object({
  id: z.uuid(),
  legalName: z.string().min(1),
  taxId: z.string().min(1),
  address: z.object({
    streetName: z.string(),
    buildingNumber: z.string(),
    cityName: z.string(),
    postalZone: z.string(),
    countryCode: z.string().length(2),
  }),
  /** Authenticates `X-API-Key` requests as this company. */
  apiKey: z.string().startsWith('sk_sandbox_'),
  /** The company's registered encryption key (API-key integrations); null until one is registered. */
  encryptionKey: z
    .object({ publicKey: Base64, privateKeyPem: PrivateKeyPem, algorithm: z.literal('RSA_2048'), uploadedAt: z.iso.datetime() })
    .nullable(),
  stores: z.array(FixtureStore).min(1),
});
export type FixtureCompany = z.infer<typeof FixtureCompany>;

export const FixtureUser = z.object({
  id: z.uuid(),
  name: z.string().min(1),
  email: z.email(),
  role: z.literal('ADMINISTRATOR'),
  /** Companies this administrator may approve client applications for. */
  companyIds: z.array(z.uuid()).min(1),
});
export type FixtureUser = z.infer<typeof FixtureUser>;

export const ClientApplicationStatus = z.enum(['Pending', 'Approved', 'Rejected']);
export type ClientApplicationStatus = z.infer<typeof ClientApplicationStatus>;

export const FixtureClientApplication = z.object({
  id: Id,
  name: z.string().min(1),
  description: z.string(),
  ownerCompanyId: z.uuid(),
  status: ClientApplicationStatus,
  /** Generated on approval, so only an Approved application has one. */
  clientSecret: z.string().min(16).nullable(),
  /** Compared as exact strings (docs/interface-decisions.md#oauth-details). */
  redirectUris: z.array(z.url()).min(1),
  scopes: z.array(z.string().min(1)).min(1),
  /** Set by `POST /client-application/{id}/public-key`. */
  publicKey: z.object({ keyData: Base64, algorithm: z.literal('RSA_2048'), uploadedAt: z.iso.datetime() }).nullable(),
});
export type FixtureClientApplication = z.infer<typeof FixtureClientApplication>;

export const FixtureDevice = z.object({
  id: z.uuid(),
  name: z.string().min(1),
  keyAlgorithm: z.literal('RSA_2048'),
  publicKey: Base64,
  /** Carried so that tests can decrypt what a device received. */
  privateKeyPem: PrivateKeyPem,
});
export type FixtureDevice = z.infer<typeof FixtureDevice>;

export const DocumentFormat = z.enum(['SERVICE', 'UBL_CREDIT_NOTE']);
export type DocumentFormat = z.infer<typeof DocumentFormat>;

export const FixtureCustomer = z.object({
  id: z.uuid(),
  name: z.string().min(1),
  email: z.email(),
  phone: z.e164(),
  iban: z.string().regex(/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/, 'must be an IBAN without spaces'),
  cardNumber: z.string().regex(/^\d{12,19}$/, 'must be 12 to 19 digits'),
  acceptedFormats: z.array(DocumentFormat).refine((f) => f.includes('SERVICE'), 'must include "SERVICE"'),
  devices: z.array(FixtureDevice).min(1),
});
export type FixtureCustomer = z.infer<typeof FixtureCustomer>;

export const Fixture = z
  .object({
    $comment: z.string().optional(),
    companies: z.array(FixtureCompany).min(1),
    users: z.array(FixtureUser),
    clientApplications: z.array(FixtureClientApplication),
    customers: z.array(FixtureCustomer),
  })
  .superRefine((fixture, ctx) => {
    const seen = new Set<string>();
    const unique = (id: string, path: PropertyKey[]) => {
      if (seen.has(id)) ctx.addIssue({ code: 'custom', path, message: `id "${id}" is used twice` });
      seen.add(id);
    };
    const companyIds = new Set(fixture.companies.map((c) => c.id));
    const known = (id: string, path: PropertyKey[]) => {
      if (!companyIds.has(id)) ctx.addIssue({ code: 'custom', path, message: `no company "${id}" in the fixture` });
    };
    const pairs = (publicKey: string, privateKeyPem: string, path: PropertyKey[]) => {
      if (!keyPairMatches(publicKey, privateKeyPem))
        ctx.addIssue({ code: 'custom', path, message: 'is not the private key of publicKey' });
    };

    fixture.companies.forEach((company, c) => {
      unique(company.id, ['companies', c, 'id']);
      company.stores.forEach((store, s) => unique(store.id, ['companies', c, 'stores', s, 'id']));
      if (company.encryptionKey)
        pairs(company.encryptionKey.publicKey, company.encryptionKey.privateKeyPem, ['companies', c, 'encryptionKey', 'privateKeyPem']);
    });
    fixture.users.forEach((user, u) => {
      unique(user.id, ['users', u, 'id']);
      user.companyIds.forEach((id, i) => known(id, ['users', u, 'companyIds', i]));
    });
    fixture.clientApplications.forEach((app, a) => {
      unique(app.id, ['clientApplications', a, 'id']);
      known(app.ownerCompanyId, ['clientApplications', a, 'ownerCompanyId']);
      if ((app.status === 'Approved') !== (app.clientSecret !== null))
        ctx.addIssue({
          code: 'custom',
          path: ['clientApplications', a, 'clientSecret'],
          message: 'an Approved application needs a secret, and only an Approved one has one',
        });
    });
    fixture.customers.forEach((customer, c) => {
      unique(customer.id, ['customers', c, 'id']);
      customer.devices.forEach((device, d) => {
        unique(device.id, ['customers', c, 'devices', d, 'id']);
        pairs(device.publicKey, device.privateKeyPem, ['customers', c, 'devices', d, 'privateKeyPem']);
      });
    });
  });
export type Fixture = z.infer<typeof Fixture>;

function keyPairMatches(publicKey: string, privateKeyPem: string): boolean {
  try {
    return publicKeyOfPrivate(privateKeyPem) === publicKey;
  } catch {
    return false;
  }
}

/** Validates parsed JSON as a fixture; `source` names it in the error (a file path). */
export function parseFixture(value: unknown, source = 'fixture'): Fixture {
  return parseOrThrow(Fixture, value, source);
}

/** Seed data of thousands of companies fits in a few MiB. */
const FIXTURE_BYTES = 32 * 1024 * 1024;

export async function loadFixture(path: string): Promise<Fixture> {
  let text: string;
  try {
    text = (await readBounded(path, undefined, `the fixture ${path}`, { bytes: FIXTURE_BYTES, why: 'a sandbox seed' })).toString('utf8');
  } catch (cause) {
    if (cause instanceof UsageError) throw cause;
    throw new UsageError(`cannot read the fixture ${path}`, { cause, hint: 'pass an existing file with --fixture' });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new UsageError(`the fixture ${path} is not valid JSON`, { cause });
  }
  return parseFixture(value, `fixture ${path}`);
}

/**
 * fixtures/sandbox.json of the installed package. Found by walking up to package.json,
 * because this module runs from src/sandbox/ in development, and from dist/ or a deeper
 * dist/chunks/ once bundled.
 */
export function bundledFixturePath(from: string | URL = import.meta.url): string {
  return packageFile(join('fixtures', 'sandbox.json'), from);
}
