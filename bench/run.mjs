// Runs every benchmark in bench/ in turn, each in its own process so that one cannot warm
// or pollute the next. A new benchmark is a new bench/*.mjs file.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const self = basename(fileURLToPath(import.meta.url));
const benches = readdirSync(dir)
  .filter((name) => name.endsWith('.mjs') && name !== self)
  .sort();

let failed = false;
for (const name of benches) {
  // Through tsx: a benchmark may start the tests' own servers (test/postgres-server.ts).
  const { status } = spawnSync(process.execPath, ['--import', 'tsx', join(dir, name)], { stdio: 'inherit' });
  failed ||= status !== 0;
}
process.exitCode = failed ? 1 : 0;
