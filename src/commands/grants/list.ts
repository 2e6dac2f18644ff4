// `svc grants list`: the Grants (and code-flow companies) the profile's logins brought back,
// from the profile; with --details, each Grant's stores as the service reports them now.
import { fetchGrantDetails } from '../../auth/grant-details.js';
import { readAuthorizations } from '../../auth/profile.js';
import type { GrantDetails } from '../../contract/oauth.js';
import { ExitCode, SvcError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeList } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { AUTHORIZATION_COLUMNS, authorizationRows } from './rows.js';

export interface ListOptions {
  details: boolean;
}

export async function run(opts: ListOptions, f: Factory): Promise<void> {
  const settings = await f.settings();
  const auth = readAuthorizations(await f.config(), settings.profile.value);
  const chosen = settings.grant?.value;
  // SVC_GRANT_ID (CI) may name a Grant no login of this profile brought back: it is used all
  // the same, so it is named, and --details asks the service about it like the others.
  const fromEnv = settings.grant?.source === 'env' && !auth.grants.some((g) => g.grant_id === chosen) ? chosen : undefined;
  if (fromEnv !== undefined) note(f.io, `SVC_GRANT_ID names Grant ${fromEnv}, which no login of this profile recorded; see it with \`svc grants show ${fromEnv}\``);
  else if (auth.grants.length + auth.companies.length === 0 && !f.io.json) note(f.io, 'no Grants yet: run `svc auth login`');
  if (opts.details) return listDetails(f, [...auth.grants.map((g) => g.grant_id), ...(fromEnv === undefined ? [] : [fromEnv])], auth.companies.length);

  await writeList(
    f.io,
    authorizationRows(auth.grants, auth.companies),
    [...AUTHORIZATION_COLUMNS, { header: 'DEFAULT', value: (r) => (r.id === chosen ? '*' : '') }],
    [...auth.grants, ...auth.companies],
  );
}

async function listDetails(f: Factory, grantIds: readonly string[], companies: number): Promise<void> {
  if (companies > 0) note(f.io, 'code-flow companies have no Grant details; they are left out');
  const details: GrantDetails[] = [];
  // One revoked (or otherwise refused) Grant must not hide the stores of the others: they are
  // listed, and the command fails with the first refusal (each names its Grant), any further
  // ones noted on stderr.
  let refused: SvcError | undefined;
  for (const id of grantIds) {
    try {
      details.push(await fetchGrantDetails(f, id));
    } catch (error) {
      if (!(error instanceof SvcError && GRANT_REFUSALS.includes(error.exitCode))) throw error;
      if (refused) note(f.io, `error: ${error.message}`);
      else refused = error;
    }
  }
  const rows = details.flatMap((d) => d.stores.map((store) => ({ grant: d, store })));
  await writeList(
    f.io,
    rows,
    [
      { header: 'GRANT', value: (r) => r.grant.grant_id, id: true },
      { header: 'COMPANY', value: (r) => r.grant.company.companyLegalName },
      { header: 'STORE', value: (r) => r.store.id, id: true },
      { header: 'CODE', value: (r) => r.store.storeCode },
      { header: 'NAME', value: (r) => r.store.storeName },
      { header: 'ACTIVE', value: (r) => (r.store.isActive ? 'yes' : 'no') },
    ],
    details,
  );
  if (refused) throw refused;
}

const GRANT_REFUSALS: readonly ExitCode[] = [ExitCode.auth, ExitCode.forbidden, ExitCode.notFound];
