// Which company a command acts for, as a person names it (`--grant`, `grants use`, a batch
// line's "grant", a line of `--grants FILE`): a Grant ID or a unique prefix of 6+ characters
// (src/ids/prefix.ts), the company's exact tax ID, or a unique part of its legal name in any
// case. One resolver for every verb, so each says the same thing when a selector fits
// several companies or none.
import { NotFoundError, UsageError } from '../errors.js';
import { GRANT_IDS } from '../ids/kinds.js';
import { MIN_PREFIX, NAMED, matchPrefix, prefixCandidates } from '../ids/prefix.js';
import type { Authorizations } from './profile.js';

/** A Grant (or code-flow company) of the profile, as a selector sees it. */
export interface GrantEntry {
  /** The Grant ID, or a code-flow company's merchant ID. */
  id: string;
  companyId: string;
  company: string;
  taxId: string;
}

export function grantEntries(auth: Authorizations): GrantEntry[] {
  return [
    ...auth.grants.map((g) => ({ id: g.grant_id, companyId: g.issuer_company_id, company: g.company_legal_name, taxId: g.tax_id })),
    ...auth.companies.map((c) => ({ id: c.merchant_id, companyId: c.merchant_id, company: c.company_legal_name, taxId: c.tax_id })),
  ];
}

/** A Grant ID the profile may not have recorded (a CI's SVC_GRANT_ID): passed on, for the service to judge. */
const ID_SHAPED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface SelectOptions {
  /** Where the selector came from, for messages: "--grant", "SVC_GRANT_ID", "line 3". */
  from?: string;
  /** Pass a selector that fits nothing on as given (SVC_GRANT_ID, the profile's own default). */
  passUnknown?: boolean;
}

/**
 * The one entry `selector` names. Exact matches come first (an ID, a tax ID, a whole legal
 * name), then a unique ID prefix or part of a name. Several fits: a usage error (exit 2)
 * naming up to 10 with their companies; none: not found (exit 6), unless it is passed on.
 */
export function selectGrant(selector: string, entries: readonly GrantEntry[], opts: SelectOptions = {}): string {
  const given = selector.trim();
  const from = opts.from === undefined ? '' : ` (${opts.from})`;
  if (given === '') throw new UsageError(`an empty Grant selector${from}`, { hint: 'give a Grant ID, a tax ID or part of a company name' });
  const byId = entries.find((e) => e.id === given);
  if (byId) return byId.id;
  const folded = given.toLowerCase();
  const compact = (s: string) => s.replace(/\s+/g, '').toLowerCase();
  for (const exact of [(e: GrantEntry) => compact(e.taxId) === compact(given), (e: GrantEntry) => e.company.toLowerCase() === folded]) {
    const hits = entries.filter(exact);
    if (hits.length === 1) return hits[0]!.id;
    if (hits.length > 1) throw ambiguous(given, hits, from);
  }
  const ids = entries.map((e) => e.id);
  const byPrefix = given.length >= MIN_PREFIX ? prefixCandidates(given, ids, GRANT_IDS) : [];
  const byName = entries.filter((e) => e.company.toLowerCase().includes(folded)).map((e) => e.id);
  const fits = entries.filter((e) => byPrefix.includes(e.id) || byName.includes(e.id));
  if (fits.length === 1) return fits[0]!.id;
  if (fits.length > 1) throw ambiguous(given, fits, from);
  // A prefix too short to count says so, as everywhere an ID is taken.
  if (prefixCandidates(given, ids, GRANT_IDS).length > 0) matchPrefix(given, ids, GRANT_IDS);
  if (opts.passUnknown || ID_SHAPED.test(given) || entries.length === 0) return given;
  throw new NotFoundError(`no Grant of this profile fits "${given}"${from}: not a Grant ID or prefix, a tax ID, or part of a company name`, {
    hint: 'see `svc grants list`, or run `svc auth login` to bring back newly approved companies',
  });
}

/**
 * The entries TEXT finds, as `grants list --filter` lists them: every one whose legal name,
 * tax ID (spaces aside) or Grant ID contains it, in any case. The parts `--grant` takes,
 * without its need for one: "shop" finds every shop a `--grant shop` would say it is ambiguous between.
 */
export function grantsMatching(text: string, entries: readonly GrantEntry[]): GrantEntry[] {
  const folded = text.trim().toLowerCase();
  const compact = (s: string) => s.replace(/\s+/g, '').toLowerCase();
  const tax = compact(text);
  return entries.filter((e) => e.company.toLowerCase().includes(folded) || (tax !== '' && compact(e.taxId).includes(tax)) || e.id.toLowerCase().includes(folded));
}

function ambiguous(given: string, fits: readonly GrantEntry[], from: string): UsageError {
  const sorted = [...fits].sort((a, b) => a.company.localeCompare(b.company) || a.id.localeCompare(b.id));
  const named = sorted.slice(0, NAMED).map((e) => `  ${e.id}  ${e.company} (${e.taxId})`).join('\n');
  const more = sorted.length > NAMED ? `\n  and ${sorted.length - NAMED} more` : '';
  return new UsageError(`Grant selector "${given}"${from} fits ${sorted.length} companies:\n${named}${more}`, {
    hint: 'give a Grant ID (or 6+ of its characters), a tax ID, or more of the name',
  });
}
