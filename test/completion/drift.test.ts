// The committed scripts in completions/ must be what the current tree generates.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generators, type Shell } from '../../src/completion/generate.js';
import { buildProgram } from '../../src/root.js';
import { completionsDir } from './shells.js';

const FILES: Record<Shell, string> = { bash: 'svc.bash', zsh: '_svc', fish: 'svc.fish' };

describe('completions/ is up to date with the command tree', () => {
  const program = buildProgram({ async run() {} });
  for (const [shell, name] of Object.entries(FILES) as [Shell, string][]) {
    it(`completions/${name}`, async () => {
      const committed = await readFile(join(completionsDir, name), 'utf8').catch(() => '');
      const generated = generators[shell](program);
      // The first differing line, rather than a diff of a thousand-line script.
      expect(committed === generated, `completions/${name} is out of date (${firstDifference(committed, generated)}): run npm run gen:completions`).toBe(true);
    });
  }
});

function firstDifference(committed: string, generated: string): string {
  const a = committed.split('\n');
  const b = generated.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line === -1 ? a.length : line;
  return `line ${at + 1}: committed ${JSON.stringify(a[at] ?? '<end>')}, generated ${JSON.stringify(b[at] ?? '<end>')}`;
}
