// The company an ID belongs to, for the verbs that act on a request or a receipt by ID:
// `--grant` when given, else the Grant it was found under (a poll over several companies, a
// receipt sent with --grant or a batch line's "grant": found-under.ts), else
// SVC_GRANT_ID and the profile's default.
import type { Caller } from '../api/caller.js';
import { writeReceiptsCaller } from '../auth/caller.js';
import { knownIds, readAuthorizations } from '../auth/profile.js';
import type { Factory } from '../factory.js';
import { companyOfFoundGrant, foundUnder, rememberFoundUnder, type FoundKind } from './found-under.js';

export async function callerForFound(f: Factory, kind: FoundKind, ids: readonly string[]): Promise<Caller> {
  return writeReceiptsCaller(f, await grantOfFound(f, kind, ids));
}

/**
 * The one Grant all the IDs were found under, if --grant is not given and the profile still
 * holds it; or, for a Grant a new login replaced (new ID, same company), the company's Grant now.
 */
export async function grantOfFound(f: Factory, kind: FoundKind, ids: readonly string[]): Promise<string | undefined> {
  const settings = await f.settings();
  if (settings.grant?.source === 'flag' || ids.length === 0 || f.env.SVC_TOKEN) return undefined;
  const found = new Set(await Promise.all(ids.map((id) => foundUnder(f, kind, id))));
  if (found.has(undefined)) return undefined;
  const authorizations = readAuthorizations(await f.config(), settings.profile.value);
  const held = new Set(knownIds(authorizations));
  const current = async (grant: string): Promise<string | undefined> => {
    if (held.has(grant)) return grant;
    const company = await companyOfFoundGrant(f, grant);
    return company === undefined ? undefined : authorizations.grants.find((g) => g.issuer_company_id === company)?.grant_id;
  };
  const grants = new Set(await Promise.all([...found].map((grant) => current(grant!))));
  const [grant] = grants;
  return grants.size === 1 ? grant : undefined;
}

/** Remembers the IDs a caller found under its Grant (nothing for an API key or SVC_TOKEN). */
export async function rememberFoundBy(f: Factory, caller: Caller, kind: FoundKind, ids: readonly string[]): Promise<void> {
  const grant = caller.grantId;
  if (grant !== undefined) await rememberFoundUnder(f, kind, ids.map((id) => [id, grant] as const));
}
