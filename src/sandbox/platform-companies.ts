// `svc sandbox start --companies N`: the fixture grown into a platform's world, where the
// administrator approves the client applications for N companies, so that one login gives
// one integration N Grants. The fixture's own companies count first; the rest are clones
// of its last company with deterministic IDs, names, tax IDs, API keys and two stores each,
// so that a test, the demo and the bench can name company 537 the same way every run.
import { UsageError } from '../errors.js';
import type { Fixture, FixtureCompany } from './fixture.js';

export const MAX_SANDBOX_COMPANIES = 10_000;

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Company number `n` (1-based, counting the fixture's): its ID, as tests compute it. */
export function seededCompanyId(n: number): string {
  return `c0000000-0000-4000-a000-${pad(n, 12)}`;
}

function seededCompany(n: number, like: FixtureCompany): FixtureCompany {
  const number = pad(n, 5);
  return {
    id: seededCompanyId(n),
    legalName: `Platform Shop ${number} GmbH`,
    taxId: `EU9${pad(n, 8)}`,
    address: { ...like.address },
    apiKey: `sk_sandbox_shop_${number}`,
    encryptionKey: null,
    stores: [1, 2].map((s) => ({
      id: `50000000-0000-4000-a000-${pad(n * 10 + s, 12)}`,
      storeName: `Platform Shop ${number} ${s === 1 ? 'Main Street' : 'Station'}`,
      storeCode: `PS${number}-${s}`,
      isActive: true,
    })),
  };
}

/**
 * The fixture with the first user (the administrator who approves in the sandbox) able to
 * approve for exactly `count` companies: the fixture's first ones, then generated ones.
 * Refused when a generated ID would collide with one of a custom fixture.
 */
export function withCompanies(fixture: Fixture, count: number): Fixture {
  if (!Number.isInteger(count) || count < 1 || count > MAX_SANDBOX_COMPANIES)
    throw new UsageError(`--companies: "${count}" is not a whole number from 1 to ${MAX_SANDBOX_COMPANIES}`);
  const [admin, ...others] = fixture.users;
  const last = fixture.companies.at(-1);
  if (admin === undefined || last === undefined) throw new UsageError('--companies needs a fixture with a company and an administrator');
  const taken = new Set([...fixture.companies.flatMap((c) => [c.id, c.apiKey, ...c.stores.map((s) => s.id)])]);
  const added: FixtureCompany[] = [];
  for (let n = fixture.companies.length + 1; n <= count; n++) {
    const company = seededCompany(n, last);
    const clash = [company.id, company.apiKey, ...company.stores.map((s) => s.id)].find((id) => taken.has(id));
    if (clash !== undefined) throw new UsageError(`--companies: the fixture already uses ${clash}, which a generated company needs`);
    added.push(company);
  }
  const companies = [...fixture.companies, ...added];
  return {
    ...fixture,
    companies,
    users: [{ ...admin, companyIds: companies.slice(0, count).map((c) => c.id) }, ...others],
  };
}
