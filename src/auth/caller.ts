// The caller of `write_receipts` operations for this command: the client from the factory
// and the credentials of the chosen Grant, or the company API key.
import { WRITE_RECEIPTS, type Caller } from '../api/caller.js';
import { SvcError } from '../errors.js';
import type { Factory } from '../factory.js';
import { grantEntries } from './grant-select.js';
import { readAuthorizations } from './profile.js';

/**
 * The HTTP client and the credentials for `write_receipts` operations: the chosen Grant's
 * tokens when the profile has a Grant (or SVC_GRANT_ID names one), else the company API key
 * (SVC_API_KEY, or one stored as `api-key`), else the "run `svc auth login`" error.
 * `grant` (a selector, or a Grant ID a request was found under) is taken as --grant would be.
 */
export async function writeReceiptsCaller(f: Factory, grant?: string): Promise<Caller> {
  const apiKey = grant === undefined ? await companyApiKey(f) : undefined;
  if (apiKey) return { api: await f.api(), auth: { apiKey } };
  // Imported on use, like every verb's heavier dependencies.
  const { tokenSourceFor } = await import('./session.js');
  const auth = await tokenSourceFor(f, { scope: WRITE_RECEIPTS, grant });
  return { api: await f.api(), auth, grantId: auth.grantId, companyId: await companyOf(f, auth.grantId) };
}

/** The company a Grant of the profile acts for; undefined for a Grant it does not record (SVC_GRANT_ID, SVC_TOKEN). */
async function companyOf(f: Factory, grantId: string | undefined): Promise<string | undefined> {
  if (grantId === undefined) return undefined;
  const settings = await f.settings();
  return grantEntries(readAuthorizations(await f.config(), settings.profile.value)).find((e) => e.id === grantId)?.companyId;
}

async function companyApiKey(f: Factory): Promise<string | undefined> {
  if (f.env.SVC_TOKEN) return undefined;
  const settings = await f.settings();
  const authorizations = readAuthorizations(await f.config(), settings.profile.value);
  if (settings.grant || authorizations.grants.length + authorizations.companies.length > 0) return undefined;
  if (f.env.SVC_API_KEY) return f.env.SVC_API_KEY;
  // Before a stored key stands in for an empty SVC_API_KEY (or SVC_CLIENT_SECRET, …): that variable is named.
  await (await import('./credentials.js')).refuseEmptyCredentials(f);
  try {
    return (await (await f.secrets()).get('api-key')) ?? undefined;
  } catch (error) {
    // No usable secret store and no key in the environment: OAuth decides what to say.
    if (error instanceof SvcError) return undefined;
    throw error;
  }
}

/**
 * The company a caller acts for, as a person reads it in a question: the legal name the
 * profile records for its Grant, else the Grant's ID, else the API key's company.
 */
export async function companyNameOf(f: Factory, caller: Pick<Caller, 'grantId'>): Promise<string> {
  if (caller.grantId === undefined) return "your API key's company";
  const settings = await f.settings();
  return grantEntries(readAuthorizations(await f.config(), settings.profile.value)).find((e) => e.id === caller.grantId)?.company ?? `Grant ${caller.grantId}`;
}
