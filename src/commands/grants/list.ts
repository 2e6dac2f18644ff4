// `svc grants list`: the Grants (and code-flow companies) the profile's logins brought back,
// from the profile; with --details, each Grant's stores and scopes as the service reports them now.
import { refuseEmptyCredentials } from '../../auth/credentials.js';
import { fetchGrantDetails } from '../../auth/grant-details.js';
import { readAuthorizations } from '../../auth/profile.js';
import { grantEntries, grantsMatching, type GrantEntry } from '../../auth/grant-select.js';
import { UsageError } from '../../errors.js';
import { concurrencyOf, fanOut, fanOutTargets, fansOut, type FanOutFlags } from '../../grants/fan-out.js';
import { failIfAllFailed, failIfSomeFailed, failureElements, reportFailures } from '../../grants/report.js';
import type { Factory } from '../../factory.js';
import { writeList } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { AUTHORIZATION_COLUMNS, authorizationRows, type AuthorizationRow } from './rows.js';

export interface ListOptions extends FanOutFlags {
  details: boolean;
  /** --filter TEXT: the companies whose name, tax ID or Grant ID contains it. */
  filter?: string | undefined;
  /** --grant: not a filter here; refused, naming --filter. */
  grant?: string | undefined;
}

export async function run(opts: ListOptions, f: Factory): Promise<void> {
  // The Grants are whom the credentials act for: an empty SVC_GRANT_ID or SVC_API_KEY must not
  // answer with the stored ones (docs/login-and-secrets.md#secrets), as no other command does.
  await refuseEmptyCredentials(f);
  if (opts.grant !== undefined) {
    throw new UsageError('grants list lists companies; --grant picks the one a command acts for', { hint: `find companies by part of their name, tax ID or Grant ID with \`svc grants list --filter ${opts.grant}\`` });
  }
  if (opts.filter !== undefined && opts.details) throw new UsageError('--filter goes without --details', { hint: 'give --grants FILE with --details for some companies' });
  const settings = await f.settings();
  const auth = readAuthorizations(await f.config(), settings.profile.value);
  const chosen = settings.grant?.value;
  // SVC_GRANT_ID (CI) may name a Grant no login of this profile brought back: it is used all
  // the same, so it is named, and --details asks the service about it like the others.
  const fromEnv = settings.grant?.source === 'env' && !auth.grants.some((g) => g.grant_id === chosen) ? chosen : undefined;
  if (fromEnv !== undefined) note(f.io, `SVC_GRANT_ID names Grant ${fromEnv}, which no login of this profile recorded; see it with \`svc grants show ${fromEnv}\``);
  else if (auth.grants.length + auth.companies.length === 0 && !f.io.json) note(f.io, 'no Grants yet: run `svc auth login`');
  if (opts.details) return listDetails(f, opts, fromEnv, auth.companies.length);
  if (fansOut(opts)) throw new UsageError('--all-grants and --grants go with --details', { hint: 'without --details, `grants list` shows every Grant of the profile already' });

  const columns = [...AUTHORIZATION_COLUMNS, { header: 'DEFAULT', value: (r: AuthorizationRow) => (r.id === chosen ? '*' : '') }];
  if (opts.filter === undefined) return writeList(f.io, authorizationRows(auth.grants, auth.companies), columns, [...auth.grants, ...auth.companies]);
  // The same parts --grant takes (src/auth/grant-select.ts), every company that has them.
  const found = new Set(grantsMatching(opts.filter, grantEntries(auth)).map((e) => e.id));
  const grants = auth.grants.filter((g) => found.has(g.grant_id));
  const companies = auth.companies.filter((c) => found.has(c.merchant_id));
  const total = auth.grants.length + auth.companies.length;
  const text = JSON.stringify(opts.filter);
  if (found.size === 0 && !f.io.json) return note(f.io, `no Grant of ${total} matches ${text}: not part of a company name, tax ID or Grant ID`);
  await writeList(f.io, authorizationRows(grants, companies), columns, [...grants, ...companies], { footer: `${found.size} of ${total} Grants match ${text}` });
}

/**
 * Each Grant's stores and scopes as the service reports them now, fetched for all of them at once
 * (src/grants/fan-out.ts): a revoked or refused Grant does not hide the others' stores. It
 * is reported for itself (a stderr line, or an `{grantId, companyId, error}` element), and
 * the command exits 9, partly failed; when every Grant fails, with their common error.
 */
async function listDetails(f: Factory, opts: ListOptions, fromEnv: string | undefined, companies: number): Promise<void> {
  if (companies > 0) note(f.io, 'code-flow companies have no Grant details; they are left out');
  const concurrency = concurrencyOf(opts.concurrency);
  const grants = await profileGrants(f, fromEnv);
  const targets = fansOut(opts) ? (await fanOutTargets(f, opts)).filter((t) => grants.some((g) => g.id === t.id)) : grants;
  const result = await fanOut(f, targets, (g, target) => fetchGrantDetails(g, target.id), { concurrency, what: 'fetching Grant details' });
  failIfAllFailed(f, result.failed, targets.length, 'read');
  const details = result.ok.map(({ target, value }) => ({ ...value, grantId: target.id, companyId: target.companyId }));
  const rows = details.flatMap((d) => d.stores.map((store) => ({ grant: d, store })));
  reportFailures(f, result.failed, { total: targets.length });
  await writeList(
    f.io,
    rows,
    [
      { header: 'GRANT', value: (r) => r.grant.grant_id, id: true },
      { header: 'COMPANY', value: (r) => r.grant.company.companyLegalName, flex: true, cut: { middle: true, min: 16 } },
      // What a person tells the stores of a company apart by is CODE and NAME: the store's ID
      // (as wide as its whole UUID where the IDs share their start) gives way before them.
      { header: 'STORE', value: (r) => r.store.id, id: true, drop: 1 },
      { header: 'CODE', value: (r) => r.store.storeCode },
      { header: 'NAME', value: (r) => r.store.storeName, flex: true },
      { header: 'ACTIVE', value: (r) => (r.store.isActive ? 'yes' : 'no') },
      // The Grant's scopes as the service reports them now: a long list of words, the first left out.
      { header: 'SCOPES', value: (r) => r.grant.scopes.join(' '), drop: 2 },
    ],
    [...details, ...failureElements(result.failed)],
  );
  failIfSomeFailed(result.failed, targets.length, 'read');
}

/** The Grants of the profile (not code-flow companies), and SVC_GRANT_ID's if no login recorded it. */
async function profileGrants(f: Factory, fromEnv: string | undefined): Promise<GrantEntry[]> {
  const auth = readAuthorizations(await f.config(), (await f.settings()).profile.value);
  const grants = grantEntries({ ...auth, companies: [] });
  return fromEnv === undefined ? grants : [...grants, { id: fromEnv, companyId: '', company: fromEnv, taxId: '' }];
}
