// Regenerates the command reference, docs/commands/*.md and docs/man/*.1, from the command
// definitions (src/reference/): `npm run docs`. test/reference/drift.test.ts fails when the
// committed pages fall behind the command tree.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

process.chdir(new URL('..', import.meta.url).pathname);
// Help text after a command's options is wrapped to the terminal it is read on (whole when
// piped): the pages must not depend on the terminal `npm run docs` runs in.
Object.defineProperty(process.stdout, 'isTTY', { value: false, configurable: true, writable: true });
const [{ buildProgram }, { renderReference, REFERENCE_DIRS }] = await Promise.all([import('../src/root.ts'), import('../src/reference/render.ts')]);
const files = renderReference(buildProgram({ async run() {} }));

for (const dir of REFERENCE_DIRS) {
  mkdirSync(dir, { recursive: true });
  // A page of a command that is gone goes too.
  for (const name of readdirSync(dir)) if (!files.has(join(dir, name))) rmSync(join(dir, name));
}
for (const [path, text] of files) writeFileSync(path, text);
console.log(`wrote ${files.size} files under ${REFERENCE_DIRS.join(' and ')}`);
