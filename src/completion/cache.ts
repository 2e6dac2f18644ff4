// What shell completion offers for request IDs: the IDs of the last `credit-note poll` of
// the profile, newest poll wins, in <state>/<profile>/completion/request-ids (one per line;
// IDs are no secret). Written quietly: completion is a convenience, never a failure.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Factory } from '../factory.js';
import { privateDir, profileStateDir } from '../io/private-file.js';

const REQUEST_IDS = 'request-ids';

export async function rememberRequestIds(f: Factory, ids: readonly string[]): Promise<void> {
  try {
    const dir = profileStateDir(f, 'completion');
    await privateDir(dir);
    await writeFile(join(dir, REQUEST_IDS), `${ids.join('\n')}\n`, { mode: 0o600 });
  } catch {
    // Only completion would miss them.
  }
}

export async function rememberedRequestIds(f: Factory): Promise<string[]> {
  try {
    return (await readFile(join(profileStateDir(f, 'completion'), REQUEST_IDS), 'utf8')).split('\n').filter((l) => l !== '');
  } catch {
    return [];
  }
}
