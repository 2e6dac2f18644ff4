// The company a Grant acts for, as hints and confirmations name it: "Platform Shop 00037 GmbH
// (EU900000037)", and the command that finds its return requests (`--grant` and its tax ID
// when it is not the profile's default), so that a platform acting for many companies always
// reads which one a line is about.
import { grantEntries, selectGrant, type GrantEntry } from '../auth/grant-select.js';
import { readAuthorizations } from '../auth/profile.js';
import type { Factory } from '../factory.js';

export interface NamedCompany {
  entry: GrantEntry;
  /** The Grant a command uses when not told (--grant, SVC_GRANT_ID, the profile's). */
  isDefault: boolean;
  /** The profile holds more than one company. */
  ofMany: boolean;
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
  return { entry, isDefault: entry.id === fallback && settings.grant?.source !== 'flag', ofMany: entries.length > 1 };
}

/** "Platform Shop 00037 GmbH (EU900000037)" */
export function companyLabel(entry: Pick<GrantEntry, 'company' | 'taxId'>): string {
  return entry.taxId === '' ? entry.company : `${entry.company} (${entry.taxId})`;
}

/** `svc credit-note poll`, with `--grant TAX_ID` for a company that is not the default. */
export function pollCommandFor(named: NamedCompany | undefined): string {
  if (named === undefined || named.isDefault) return 'svc credit-note poll';
  return `svc credit-note poll --grant ${named.entry.taxId || named.entry.id}`;
}

/** " for Platform Shop 00037 GmbH (EU900000037)"; nothing for a company the profile does not record (an API key, SVC_TOKEN). */
export function forCompany(named: NamedCompany | undefined): string {
  return named === undefined ? '' : ` for ${companyLabel(named.entry)}`;
}
