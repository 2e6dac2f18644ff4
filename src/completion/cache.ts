// What shell completion offers for request IDs: the requests the profile's polls listed, with
// their statuses, in <state>/<profile>/completion/request-ids, one `ID<TAB>STATUS<TAB>GRANT` a
// line (IDs, statuses and Grant IDs are no secret; GRANT is empty for the profile's own login,
// and a line without a status or a Grant is from an older svc). A poll replaces what was kept
// of the queues it listed whole and updates the rest: `poll --grant B` leaves company A's
// requests offered, `poll --status COMPLETED` leaves the PENDING ones; each move this machine
// makes updates its request. The status lets completion offer only the requests a verb can
// move. Written quietly: completion is a convenience, never a failure.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Factory } from '../factory.js';
import { privateDir } from '../store/private-file.js';
import { profileStateDir } from '../config/profile-dir.js';

const REQUEST_IDS = 'request-ids';

export interface RememberedRequest {
  requestId: string;
  /** Undefined in a file an older svc wrote. */
  status?: string | undefined;
  /** The Grant a poll listed it under; '' for the profile's own login; undefined in a file an older svc wrote. */
  grant?: string | undefined;
}

/** What one poll listed. */
export interface PolledListing {
  /** Each with the Grant it was listed under ('' for the profile's own login). */
  requests: readonly RememberedRequest[];
  /**
   * The queues (Grants, '' for the own login) this poll listed whole: a request kept of one of
   * them that the poll did not list has left it. A listing narrowed by --status is whole for none.
   */
  whole: readonly string[];
}

async function writeRemembered(f: Factory, requests: readonly RememberedRequest[]): Promise<void> {
  try {
    const dir = profileStateDir(f, 'completion');
    await privateDir(dir);
    const lines = requests.map((r) => [r.requestId, r.status ?? '', r.grant ?? ''].join('\t').replace(/\t+$/, ''));
    await writeFile(join(dir, REQUEST_IDS), `${lines.join('\n')}\n`, { mode: 0o600 });
  } catch {
    // Only completion would miss them.
  }
}

// One update of the file at a time in this process: requests read at once (a confirmation naming several) each keep their status.
let updating = Promise.resolve();

/** A poll's listing, merged into what earlier polls of other queues (or of other statuses) left. */
export function rememberPolledRequests(f: Factory, listing: PolledListing): Promise<void> {
  updating = updating.then(async () => {
    const whole = new Set(listing.whole);
    const listed = new Map(listing.requests.map((r) => [r.requestId, r]));
    // Kept: what this poll did not list whole; an older line (no Grant) counts as the own login's.
    const kept = (await rememberedRequests(f)).filter((r) => !listed.has(r.requestId) && !whole.has(r.grant ?? ''));
    await writeRemembered(f, [...kept, ...listed.values()]);
  });
  return updating;
}

/** A request this machine just moved, or read from the service: its line gets the status (it is added when new). */
export function rememberMove(f: Factory, requestId: string, status: string): Promise<void> {
  updating = updating.then(async () => {
    const known = await rememberedRequests(f);
    const at = known.findIndex((r) => r.requestId === requestId);
    if (at !== -1 && known[at]!.status === status) return;
    if (at === -1) known.push({ requestId, status });
    else known[at] = { ...known[at]!, status };
    await writeRemembered(f, known);
  });
  return updating;
}

export async function rememberedRequests(f: Factory): Promise<RememberedRequest[]> {
  try {
    const text = await readFile(join(profileStateDir(f, 'completion'), REQUEST_IDS), 'utf8');
    return text
      .split('\n')
      .filter((l) => l !== '')
      .map((line) => {
        const [requestId = '', status, grant] = line.split('\t');
        return { requestId, ...(status === undefined || status === '' ? {} : { status }), ...(grant === undefined ? {} : { grant }) };
      });
  } catch {
    return [];
  }
}

export async function rememberedRequestIds(f: Factory): Promise<string[]> {
  return (await rememberedRequests(f)).map((r) => r.requestId);
}
