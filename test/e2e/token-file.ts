// What a profile's private token file (<state dir>/<profile>/tokens.db) holds, read and
// changed as another process would: tests that look at or spoil cached access tokens.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openTokenFile } from '../../src/store/token-file.js';
import type { SvcHome } from './helpers.js';

export interface CachedRow {
  id: string;
  slot: string;
  token: { access_token: string; [member: string]: unknown };
}

export function tokenFilePath(home: SvcHome, profile = 'local'): string {
  return join(home.stateDir, profile, 'tokens.db');
}

/** Every cached token of the profile; none when it has no token file yet. */
export async function cachedTokenRows(home: SvcHome, profile = 'local'): Promise<CachedRow[]> {
  const path = tokenFilePath(home, profile);
  if (!existsSync(path)) return [];
  const file = await openTokenFile(path);
  try {
    return file.ids().flatMap((id) => Object.entries(file.read(id)).map(([slot, token]) => ({ id, slot, token: JSON.parse(token) as CachedRow['token'] })));
  } finally {
    file.close();
  }
}

/** Replaces each cached token with what `change` makes of it (undefined drops it). */
export async function changeCachedTokens(home: SvcHome, change: (row: CachedRow) => CachedRow['token'] | undefined, profile = 'local'): Promise<void> {
  const rows = await cachedTokenRows(home, profile);
  const file = await openTokenFile(tokenFilePath(home, profile));
  try {
    for (const row of rows) {
      const changed = change(row);
      if (changed === undefined) file.remove(row.id, row.slot);
      else file.write(row.id, row.slot, JSON.stringify(changed));
    }
  } finally {
    file.close();
  }
}
