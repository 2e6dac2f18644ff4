// Which Grant a return request or a receipt was found under, per profile: after a poll over
// many companies (or one `--grant`), `credit-note show|accept|issue REQ` acts for the company
// the request belongs to without being told. A small map in
// <state>/<profile>/grants/found-under.json (IDs only, no secret), owner-only, replaced whole
// under a lock so that parallel runs never lose each other's entries. It is a convenience:
// a failure to keep it never fails the command that found the requests.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Factory } from '../factory.js';
import { MIN_PREFIX } from '../ids/prefix.js';
import { privateDir, replacePrivateFile } from '../store/private-file.js';
import { profileStateDir } from '../config/profile-dir.js';
import { withLock } from '../store/lock.js';

export type FoundKind = 'requests' | 'receipts';

type FoundMap = Record<FoundKind, Record<string, string>> & {
  /** Grant ID → its company's ID, so that a Grant a new login replaced leads to its successor. */
  companies: Record<string, string>;
};

const FILE = 'found-under.json';
/** Beyond this many entries of a kind, the oldest are dropped (insertion order). */
const KEEP = 100_000;

function dirOf(f: Factory): string {
  return profileStateDir(f, 'grants');
}

async function readMap(dir: string): Promise<FoundMap> {
  try {
    const parsed = JSON.parse(await readFile(join(dir, FILE), 'utf8')) as Partial<FoundMap>;
    return { requests: { ...parsed.requests }, receipts: { ...parsed.receipts }, companies: { ...parsed.companies } };
  } catch {
    return { requests: {}, receipts: {}, companies: {} };
  }
}

/** The company of each of these Grants the profile holds (Grant flow). */
async function companiesOf(f: Factory, grantIds: ReadonlySet<string>): Promise<Map<string, string>> {
  const [{ authIndex, readAuthorizations }, settings] = await Promise.all([import('../auth/profile.js'), f.settings()]);
  const held = authIndex(readAuthorizations(await f.config(), settings.profile.value)).grants;
  const out = new Map<string, string>();
  for (const id of grantIds) {
    const company = held.get(id)?.issuer_company_id;
    if (company !== undefined) out.set(id, company);
  }
  return out;
}

/** Records each ID with the Grant it was found under (a later finding wins), and the Grant's company. */
export async function rememberFoundUnder(f: Factory, kind: FoundKind, found: Iterable<readonly [id: string, grantId: string]>): Promise<void> {
  const entries = [...found];
  if (entries.length === 0) return;
  const dir = dirOf(f);
  try {
    const companies = await companiesOf(f, new Set(entries.map(([, grantId]) => grantId)));
    // A poll of the same queue again finds what is kept already: nothing to write (only the
    // order, which matters when the oldest entries must give way, would change).
    const current = await readMap(dir);
    const known = current[kind];
    if (
      Object.keys(known).length < KEEP &&
      entries.every(([id, grantId]) => known[id] === grantId) &&
      [...companies].every(([grantId, company]) => current.companies[grantId] === company)
    ) return;
    await privateDir(dir);
    await withLock(join(dir, `${FILE}.lock`), async () => {
      const map = await readMap(dir);
      const kept = map[kind];
      for (const [id, grantId] of entries) {
        delete kept[id];
        kept[id] = grantId;
      }
      const ids = Object.keys(kept);
      for (const old of ids.slice(0, Math.max(0, ids.length - KEEP))) delete kept[old];
      for (const [grantId, company] of companies) map.companies[grantId] = company;
      // Only the companies of Grants some entry still names.
      const named = new Set([...Object.values(map.requests), ...Object.values(map.receipts)]);
      for (const grantId of Object.keys(map.companies)) if (!named.has(grantId)) delete map.companies[grantId];
      await replacePrivateFile(join(dir, FILE), JSON.stringify(map));
    });
  } catch {
    // Only the convenience is lost: --grant still names the company.
  }
}

/**
 * The Grant an ID (or a unique prefix of 6+ characters) was found under; undefined when it
 * was never seen, or when a prefix fits IDs found under different Grants.
 */
export async function foundUnder(f: Factory, kind: FoundKind, id: string): Promise<string | undefined> {
  const kept = (await readMap(dirOf(f)))[kind];
  const given = id.trim();
  if (kept[given] !== undefined) return kept[given];
  if (given.length < MIN_PREFIX) return undefined;
  const folded = given.toLowerCase();
  const grants = new Set(Object.entries(kept).filter(([k]) => k.toLowerCase().startsWith(folded)).map(([, g]) => g));
  return grants.size === 1 ? [...grants][0] : undefined;
}

/** The company a Grant that IDs were found under belongs to, as recorded then; undefined when not recorded. */
export async function companyOfFoundGrant(f: Factory, grantId: string): Promise<string | undefined> {
  return (await readMap(dirOf(f))).companies[grantId];
}
