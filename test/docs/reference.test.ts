// The committed command reference (docs/commands/, docs/man/) must be what `npm run docs`
// writes from the current command tree, with a page and a man page for every command, and
// every man page must render under groff -ww without a warning.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_DIRS, renderReference } from '../../src/reference/render.js';
import { buildProgram } from '../../src/root.js';
import { requireTools } from '../e2e/require-tools.js';

const root = resolve(import.meta.dirname, '../..');
const files = renderReference(buildProgram({ async run() {} }));

describe('the command reference is up to date with the command tree', () => {
  it('docs/commands and docs/man hold exactly what npm run docs writes', () => {
    const committed = REFERENCE_DIRS.flatMap((dir) => (existsSync(join(root, dir)) ? readdirSync(join(root, dir)).map((n) => `${dir}/${n}`) : []));
    expect(committed.sort(), 'run npm run docs').toEqual([...files.keys()].sort());
    for (const [path, text] of files) expect(readFileSync(join(root, path), 'utf8') === text, `${path} is out of date: run npm run docs`).toBe(true);
  });

  it('every man page renders under groff -ww without a warning', (ctx) => {
    const missing = requireTools(['groff']);
    if (missing) return ctx.skip(missing);
    for (const path of files.keys()) {
      if (!path.endsWith('.1')) continue;
      const run = spawnSync('groff', ['-ww', '-man', '-Tutf8', join(root, path)], { encoding: 'utf8' });
      expect(run.status, path).toBe(0);
      expect(run.stderr, `groff -ww warns on ${path}`).toBe('');
    }
  });
});

describe("each page's options are those its command's --help lists", () => {
  const bin = join(root, 'bin/svc.js');
  const pages = [...files.entries()].filter(([p]) => p.endsWith('.md') && !p.endsWith('README.md'));
  it.skipIf(!existsSync(join(root, 'dist')))('every command (needs npm run build)', () => {
    for (const [path, text] of pages) {
      const words = path.replace(/^docs\/commands\/svc-?|\.md$/g, '');
      const cmdPath = words === '' ? [] : (text.split('\n').find((l) => l.startsWith('# svc')) ?? '').slice('# svc '.length).split(' ');
      const run = spawnSync(process.execPath, [bin, ...cmdPath, '--help'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
      const helpFlags = run.stdout.split('\n').filter((l) => /^ {2}-/.test(l)).map((l) => l.trim().split(/ {2,}/)[0]).sort();
      const pageFlags = [...text.matchAll(/^- `(-[^`]*)`:/gm)].map((m) => m[1]).sort();
      const own = text.split('\n## Options\n')[1]?.split('\n## ')[0] ?? '';
      const ownFlags = [...own.matchAll(/^- `(-[^`]*)`:/gm)].map((m) => m[1]);
      // Every option help lists is on the page; every option of the page's own list is in help
      // (a noun's help leaves the global options to svc --help; the page lists them apart).
      expect(pageFlags, path).toEqual(expect.arrayContaining(helpFlags));
      expect(helpFlags, path).toEqual(expect.arrayContaining(ownFlags));
    }
  }, 60_000);
});
