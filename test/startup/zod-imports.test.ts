// `import { z } from 'zod'` makes the bundle build zod's namespace objects at start-up
// (about 570 getters, 4% of a one-request command); `import * as z` lets esbuild refer to
// each function directly and drop what no command uses.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = join(import.meta.dirname, '../../src');

describe('zod in the sources', () => {
  it('is imported as a namespace, never as the z export', () => {
    const offenders = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /^import\s+\{[^}]*(?<!type\s+)\bz\b[^}]*\}\s+from\s+'zod'/m.test(readFileSync(join(src, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
