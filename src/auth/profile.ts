// What a login leaves in the profile: non-secret metadata only. Grant-flow logins keep the
// Grants (`grants`); code-flow logins keep one record per company (`companies`: the token
// record without its tokens). `grant` names the default: a Grant ID, or a company's
// merchant ID for the code flow, so `--grant`, SVC_GRANT_ID and `grants use` cover both.
import * as z from '../contract/zod.js';
import type { ConfigStore, GrantRecord } from '../config/store.js';
import type { Grant, TokenRecord } from '../contract/oauth.js';

export const CompanyRecord = z.looseObject({
  merchant_id: z.string().min(1),
  company_legal_name: z.string(),
  tax_id: z.string(),
  customer_id: z.string().nullable(),
  /** Expiry of the access token and of the refresh token, ISO 8601. */
  expires_at: z.string(),
  refresh_expires_at: z.string(),
  /** The scopes asked for at login, which the company's access tokens carry. */
  scope: z.string(),
});
export type CompanyRecord = z.infer<typeof CompanyRecord>;

export interface Authorizations {
  grants: GrantRecord[];
  companies: CompanyRecord[];
  /** The profile's default (not SVC_GRANT_ID). */
  grant: string | undefined;
}

export function readAuthorizations(config: ConfigStore, profile: string): Authorizations {
  const stored = config.authorizations(profile);
  return { grants: stored.grants, companies: companiesOf(stored.companies), grant: config.profile(profile).grant };
}

const NO_COMPANIES: CompanyRecord[] = [];
// Parsed once per parse of the config file (the store keeps one while the file is unchanged):
// a run over thousands of Grants reads the authorizations once per Grant.
const parsedCompanies = new WeakMap<object, CompanyRecord[]>();

// What is kept may have been edited by hand (config.json): an entry that no longer parses is left out.
function companiesOf(stored: readonly Record<string, unknown>[]): CompanyRecord[] {
  if (stored.length === 0) return NO_COMPANIES;
  let companies = parsedCompanies.get(stored);
  if (companies === undefined) {
    companies = stored.flatMap((entry: unknown) => {
      const parsed = CompanyRecord.safeParse(entry);
      return parsed.success ? [parsed.data] : [];
    });
    parsedCompanies.set(stored, companies);
  }
  return companies;
}

/** The Grants and companies of the authorizations by ID. */
export interface AuthIndex {
  grants: ReadonlyMap<string, GrantRecord>;
  companies: ReadonlyMap<string, CompanyRecord>;
}

const indexes = new WeakMap<object, WeakMap<object, AuthIndex>>();

/** Built once for the same arrays (the same parse of the config file), so a lookup per Grant costs no scan of all of them. */
export function authIndex(a: Authorizations): AuthIndex {
  let byCompanies = indexes.get(a.grants);
  if (byCompanies === undefined) indexes.set(a.grants, (byCompanies = new WeakMap()));
  let index = byCompanies.get(a.companies);
  if (index === undefined) {
    index = { grants: new Map(a.grants.map((g) => [g.grant_id, g])), companies: new Map(a.companies.map((c) => [c.merchant_id, c])) };
    byCompanies.set(a.companies, index);
  }
  return index;
}

export function knownIds(a: Authorizations): string[] {
  return [...a.grants.map((g) => g.grant_id), ...a.companies.map((c) => c.merchant_id)];
}

export function companyRecord(record: TokenRecord, scope: string): CompanyRecord {
  return {
    merchant_id: record.merchant_id,
    company_legal_name: record.company_legal_name,
    tax_id: record.tax_id,
    customer_id: record.customer_id,
    expires_at: record.expires_at,
    refresh_expires_at: record.refresh_expires_at,
    scope,
  };
}

// A new login decides the default when it authorized exactly one company, or when the
// profile had none; otherwise the user's earlier choice stays.
function nextDefault(current: string | undefined, added: readonly string[]): string | undefined {
  if (added.length === 1 || current === undefined) return added[0] ?? current;
  return current;
}

export interface SavedGrants {
  /** The profile's default afterwards. */
  grant: string | undefined;
  /** Earlier Grants replaced by a new one of the same company (their cached tokens are stale). */
  superseded: string[];
}

/**
 * Adds or replaces Grants by ID. There is one Grant per approved company, so a new Grant of
 * a company replaces the profile's earlier ones (revoked, or replaced by this approval), and
 * a default that named one of them moves to the new one: otherwise a login after a
 * revocation would leave the revoked Grant the default, and every command would keep
 * failing with "run `svc auth login`".
 */
export async function saveGrants(config: ConfigStore, profile: string, received: readonly Grant[], savedAt?: string): Promise<SavedGrants> {
  // `saved_at` lets a later invalid_grant tell a sandbox that forgot the Grant (restarted
  // since) from a revocation (src/auth/sandbox-restart.ts).
  const grants = (savedAt === undefined ? received : received.map((g) => ({ ...g, saved_at: savedAt }))) as GrantRecord[];
  const ids = grants.map((g) => g.grant_id);
  const successorOf = new Map(grants.map((g) => [g.issuer_company_id, g.grant_id]));
  const saved: SavedGrants = { grant: undefined, superseded: [] };
  await config.updateAuthorizations(profile, (current, p) => {
    const received = new Set(ids);
    const earlier = current.grants.filter((g) => !received.has(g.grant_id));
    const superseded = earlier.filter((g) => successorOf.has(g.issuer_company_id));
    const replacedDefault = superseded.find((g) => g.grant_id === p.grant);
    const chosen = replacedDefault ? successorOf.get(replacedDefault.issuer_company_id) : p.grant;
    saved.grant = nextDefault(chosen, ids);
    saved.superseded = superseded.map((g) => g.grant_id);
    // The Grants received go last, in the order received (a Grant received again moves there).
    return { dropGrants: [...saved.superseded, ...ids], putGrants: grants, grant: saved.grant ?? null };
  });
  return saved;
}

/** Adds or replaces companies by merchant ID; returns the profile's default afterwards. */
export async function saveCompanies(config: ConfigStore, profile: string, companies: readonly CompanyRecord[]): Promise<string | undefined> {
  const ids = companies.map((c) => c.merchant_id);
  let chosen: string | undefined;
  await config.updateAuthorizations(profile, (_current, p) => {
    chosen = nextDefault(p.grant, ids);
    return { dropCompanies: ids, putCompanies: companies, grant: chosen ?? null };
  });
  return chosen;
}

/** Keeps the expiry shown by `grants list` current after a refresh: the company's row alone is written. */
export async function updateCompanyExpiry(config: ConfigStore, profile: string, record: TokenRecord): Promise<void> {
  await config.updateAuthorizations(profile, (current) => {
    const company = companiesOf(current.companies).find((c) => c.merchant_id === record.merchant_id);
    return company === undefined ? {} : { putCompanies: [{ ...company, expires_at: record.expires_at, refresh_expires_at: record.refresh_expires_at }] };
  });
}

export async function setDefault(config: ConfigStore, profile: string, id: string): Promise<void> {
  await config.updateProfile(profile, (p) => ({ ...p, grant: id }));
}

/** Removes the Grants, companies and default of a profile; its other settings stay. */
export async function forgetAuthorizations(config: ConfigStore, profile: string): Promise<void> {
  await config.updateAuthorizations(profile, () => ({ clear: true, grant: null }));
}
