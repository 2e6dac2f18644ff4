// What shell completion offers for request IDs: the requests of the last `credit-note poll`
// of the profile with their statuses (newest poll wins, and each move this machine makes
// updates its request), in <state>/<profile>/completion/request-ids, one `ID<TAB>STATUS` a
// line (IDs and statuses are no secret; a line without a status is from an older svc). The
// status lets completion offer only the requests a verb can move. Written quietly:
// completion is a convenience, never a failure.
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
}

export async function rememberRequestIds(f: Factory, requests: readonly RememberedRequest[]): Promise<void> {
  try {
    const dir = profileStateDir(f, 'completion');
    await privateDir(dir);
    const lines = requests.map((r) => (r.status === undefined ? r.requestId : `${r.requestId}\t${r.status}`));
    await writeFile(join(dir, REQUEST_IDS), `${lines.join('\n')}\n`, { mode: 0o600 });
  } catch {
    // Only completion would miss them.
  }
}

// One update of the file at a time in this process: requests read at once (a confirmation naming several) each keep their status.
let updating = Promise.resolve();

/** A request this machine just moved, or read from the service: its line gets the status (it is added when new). */
export function rememberMove(f: Factory, requestId: string, status: string): Promise<void> {
  updating = updating.then(async () => {
    const known = await rememberedRequests(f);
    const at = known.findIndex((r) => r.requestId === requestId);
    if (at !== -1 && known[at]!.status === status) return;
    if (at === -1) known.push({ requestId, status });
    else known[at] = { requestId, status };
    await rememberRequestIds(f, known);
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
        const [requestId = '', status] = line.split('\t');
        return status === undefined || status === '' ? { requestId } : { requestId, status };
      });
  } catch {
    return [];
  }
}

export async function rememberedRequestIds(f: Factory): Promise<string[]> {
  return (await rememberedRequests(f)).map((r) => r.requestId);
}
