// Grants and the access tokens issued for them: the state every protected route checks
// through guard.ts, and the OAuth routes create and revoke. A token is only a pointer to
// its Grant plus scopes and an expiry, so revoking or narrowing a Grant takes effect on
// the next request without touching the tokens.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Grant, GrantDetails } from '../contract/oauth.js';
import type { Sandbox } from './context.js';
import { defineSlice, type Store } from './state.js';

export interface GrantRecord {
  readonly grantId: string;
  /** Increases on every change (docs/interface-decisions.md#grants), revocation included. */
  version: number;
  readonly clientId: string;
  readonly companyId: string;
  readonly scopes: readonly string[];
  /** null: ALL_STORES, every active store of the company, now and later. */
  readonly storeIds: readonly string[] | null;
  /** ISO 8601 by the sandbox clock; null while the Grant is active. */
  revokedAt: string | null;
}

export interface AccessTokenRecord {
  readonly grantId: string;
  readonly scopes: readonly string[];
  /** Sandbox-clock milliseconds. */
  readonly expiresAt: number;
  /** Set when a refresh rotates it out or its family is revoked; the Grant itself lives on. */
  revoked: boolean;
}

const grantStore = defineSlice('grantStore', () => ({
  grants: new Map<string, GrantRecord>(),
  /** By the opaque token string. */
  tokens: new Map<string, AccessTokenRecord>(),
}));

/** 256 bits of randomness, URL-safe: access tokens, refresh tokens, codes, CSRF tokens. */
export function opaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

export function findGrant(sandbox: Sandbox, grantId: string): GrantRecord | undefined {
  return sandbox.state.slice(grantStore).grants.get(grantId);
}

export function findAccessToken(sandbox: Sandbox, token: string): AccessTokenRecord | undefined {
  return sandbox.state.slice(grantStore).tokens.get(token);
}

export function createGrant(
  sandbox: Sandbox,
  grant: { clientId: string; companyId: string; scopes: readonly string[]; storeIds: readonly string[] | null },
): GrantRecord {
  const record: GrantRecord = { grantId: randomUUID(), version: 1, revokedAt: null, ...grant };
  sandbox.state.slice(grantStore).grants.set(record.grantId, record);
  return record;
}

/**
 * The companies with an active Grant for this client application, in the order their
 * first Grant was made (a platform's companies, for the sandbox's spreading triggers).
 */
export function companiesGranting(sandbox: Sandbox, clientId: string): string[] {
  const companies = new Set<string>();
  for (const grant of sandbox.state.slice(grantStore).grants.values())
    if (grant.clientId === clientId && grant.revokedAt === null) companies.add(grant.companyId);
  return [...companies];
}

/** Undefined when there is no such Grant; revoking twice changes nothing. */
export function revokeGrant(sandbox: Sandbox, grantId: string): GrantRecord | undefined {
  const grant = findGrant(sandbox, grantId);
  if (grant && grant.revokedAt === null) {
    grant.revokedAt = sandbox.clock.iso();
    grant.version += 1;
  }
  return grant;
}

function storeAccessMode(grant: GrantRecord): 'SELECTED_STORES' | 'ALL_STORES' {
  return grant.storeIds === null ? 'ALL_STORES' : 'SELECTED_STORES';
}

/**
 * The stores a Grant lets its holder use right now: the selected ones, or all of the
 * company's, that are still the company's and active.
 */
export function permittedStores(sandbox: Sandbox, grant: Pick<GrantRecord, 'companyId' | 'storeIds'>): Store[] {
  const own = sandbox.state.storesOf(grant.companyId).filter((s) => s.isActive);
  return grant.storeIds === null ? own : own.filter((s) => grant.storeIds?.includes(s.id));
}

/** The consent result as docs/interface-decisions.md#grants has it. */
export function grantResource(sandbox: Sandbox, grant: GrantRecord): Grant {
  const company = sandbox.state.companies.get(grant.companyId);
  return {
    grant_id: grant.grantId,
    grant_version: grant.version,
    issuer_company_id: grant.companyId,
    company_legal_name: company?.legalName ?? '',
    tax_id: company?.taxId ?? '',
    scopes: [...grant.scopes],
    store_ids: grant.storeIds === null ? [] : [...grant.storeIds],
    store_access_mode: storeAccessMode(grant),
  };
}

/** docs/interface-decisions.md#grants: only permitted, active stores. */
export function grantDetails(sandbox: Sandbox, grant: GrantRecord): GrantDetails {
  const company = sandbox.state.companies.get(grant.companyId);
  return {
    grant_id: grant.grantId,
    grant_version: grant.version,
    company: { id: grant.companyId, companyLegalName: company?.legalName ?? '' },
    stores: permittedStores(sandbox, grant).map(({ id, storeName, storeCode, isActive }) => ({ id, storeName, storeCode, isActive })),
    scopes: [...grant.scopes],
    store_access_mode: storeAccessMode(grant),
  };
}

export function storeAccessToken(sandbox: Sandbox, token: string, record: AccessTokenRecord): void {
  sandbox.state.slice(grantStore).tokens.set(token, record);
}

/** Revokes access tokens one by one (a refresh family, what a reused code produced). */
export function revokeAccessTokens(sandbox: Sandbox, tokens: Iterable<string>): void {
  const all = sandbox.state.slice(grantStore).tokens;
  for (const token of tokens) {
    const record = all.get(token);
    if (record) record.revoked = true;
  }
}
