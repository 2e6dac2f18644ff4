// The company a Grant acts for, as hints and confirmations name it: "Platform Shop 00037 GmbH
// (EU900000037)", and the `--grant` (its tax ID) that a command a hint prints carries when
// the company is not the profile's default, so that a platform acting for many companies always
// reads which one a line is about, and a command copied from a hint acts for that one.
import type { Caller } from '../api/caller.js';
import { grantEntries, selectGrant, type GrantEntry } from '../auth/grant-select.js';
import { readAuthorizations } from '../auth/profile.js';
import type { Factory } from '../factory.js';

export interface NamedCompany {
  entry: GrantEntry;
  /** The Grant a command uses when not told (--grant, SVC_GRANT_ID, the profile's). */
  isDefault: boolean;
  /** The profile holds more than one company. */
  ofMany: boolean;
  /** How `--grant` names it in a printed command (grantSelector). */
  selector: string;
}

/** The company of `grantId` (default: the Grant a command uses when not told); undefined when the profile does not record it. */
export async function namedCompany(f: Factory, grantId?: string): Promise<NamedCompany | undefined> {
  const settings = await f.settings();
  const entries = grantEntries(readAuthorizations(await f.config(), settings.profile.value));
  if (entries.length === 0) return undefined;
  let fallback: string | undefined;
  try {
    fallback = settings.grant === undefined ? (entries.length === 1 ? entries[0]!.id : undefined) : selectGrant(settings.grant.value, entries, { passUnknown: true });
  } catch {
    fallback = undefined;
  }
  const id = grantId ?? fallback;
  const entry = entries.find((e) => e.id === id);
  if (entry === undefined) return undefined;
  return { entry, isDefault: entry.id === fallback && settings.grant?.source !== 'flag', ofMany: entries.length > 1, selector: grantSelector(entry, entries) };
}

/**
 * The company's tax ID, as a person knows it, when that names it alone among the profile's
 * companies (without spaces, as --grant compares it) and pastes into a shell as it is; else
 * its Grant ID.
 */
function grantSelector(entry: GrantEntry, entries: readonly GrantEntry[]): string {
  const compact = (taxId: string) => taxId.replace(/\s+/g, '').toLowerCase();
  const taxId = entry.taxId.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9._-]+$/.test(taxId)) return entry.id;
  return entries.filter((e) => compact(e.taxId) === taxId.toLowerCase()).length === 1 ? taxId : entry.id;
}

/** "Platform Shop 00037 GmbH (EU900000037)" */
export function companyLabel(entry: Pick<GrantEntry, 'company' | 'taxId'>): string {
  return entry.taxId === '' ? entry.company : `${entry.company} (${entry.taxId})`;
}

/** `svc credit-note poll`, with `--grant TAX_ID` for a company that is not the default. */
export function pollCommandFor(named: NamedCompany | undefined): string {
  if (named === undefined || named.isDefault) return 'svc credit-note poll';
  return `svc credit-note poll --grant ${named.selector}`;
}

/**
 * ` --grant EU900000037`, for a command a hint prints about something of the caller's company
 * (a return request of its queue) when that company is not the one a command acts for untold:
 * pasted as printed, the command then acts for it, whether or not a poll here found the
 * request under its Grant. Nothing for the default company, nor for an API key or SVC_TOKEN.
 */
export async function grantFlagOf(f: Factory, caller: Pick<Caller, 'grantId'>): Promise<string> {
  if (caller.grantId === undefined) return '';
  const named = await namedCompany(f, caller.grantId);
  if (named !== undefined) return named.isDefault ? '' : ` --grant ${named.selector}`;
  // A Grant the profile does not record: named again when --grant named it (SVC_GRANT_ID stays set).
  return (await f.settings()).grant?.source === 'flag' ? ` --grant ${caller.grantId}` : '';
}

/** " for Platform Shop 00037 GmbH (EU900000037)"; nothing for a company the profile does not record (an API key, SVC_TOKEN). */
export function forCompany(named: NamedCompany | undefined): string {
  return named === undefined ? '' : ` for ${companyLabel(named.entry)}`;
}
