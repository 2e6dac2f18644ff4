// Files shipped beside the bundle (fixtures/, completions/) are found from the package
// root: the nearest directory above this module that holds package.json. From dist/ and
// dist/chunks/ alike, and from src/ under tsx.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SvcError } from './errors.js';

export function packageFile(relative: string, from: string | URL = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, relative);
    const parent = dirname(dir);
    if (parent === dir) throw new SvcError(`cannot find the bundled ${relative}`, { hint: 'reinstall svc' });
    dir = parent;
  }
}
