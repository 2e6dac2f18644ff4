// Where a worker entry of the bundle is. `new Worker()` loads a file, not a module of the
// bundle, so each worker entry is built as its own file in dist/ (scripts/build.mjs).
import { existsSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageFile } from '../package-root.js';

/**
 * dist/`entry` (e.g. "crypto/decrypt-worker.cjs"), only when the calling module is itself part
 * of the bundle in dist/ (a chunk in dist/chunks/ or dist/main.cjs). From sources (tsx,
 * vitest) dist/ may be absent or older than the code, so the work stays on this thread there.
 */
export function bundledWorker(entry: string, from: string | URL): string | undefined {
  try {
    const dist = packageFile('dist', from);
    const worker = packageFile(`dist/${entry}`, from);
    return fileURLToPath(from).startsWith(dist + sep) && existsSync(worker) ? worker : undefined;
  } catch {
    return undefined;
  }
}
