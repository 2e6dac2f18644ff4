// The repository must stand on its own: a clone holds no design documents beside it, so
// nothing may cite them, and every link of the docs (README.md, docs/) and every
// `docs/….md#anchor` a comment or test cites must lead somewhere that exists.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter((f) => f && existsSync(join(root, f)));
const textFiles = tracked.filter((f) => /\.(ts|mts|mjs|cjs|js|json|md|sh|ya?ml|txt|1)$|^\.ci\/|^bin\//.test(f) && f !== 'package-lock.json');

// Spelt in pieces, so that this file does not cite what it forbids.
const md = '.' + 'md';
const FORBIDDEN: [RegExp, string][] = [
  [new RegExp(String.raw`\.\./` + 'shared'), 'the design directory beside the repository'],
  [new RegExp(String.raw`\b(?:CONTRACT|INTERFACE|CLI|STYLE|PERF-NOTES)` + md.replace('.', String.raw`\.`) + String.raw`\b`), 'a design document'],
  [new RegExp(String.raw`\b` + 'CONTRACT' + String.raw`\s*§`), 'a design document section'],
  [new RegExp(String.raw`\b` + 'INTERFACE' + String.raw`\b(?:'s)?\s+"`), 'a design document section'],
  [new RegExp(String.raw`\b` + 'STYLE' + String.raw`\s+(?:pattern\s+)?\d`), 'a design document pattern'],
];

/** GitHub's anchor of a heading. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/<[^>]+>/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let set = anchorCache.get(file);
  if (set) return set;
  set = new Set();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence;
    const h = !fence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const s = slug(h[1]!);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    set.add(n ? `${s}-${n}` : s);
  }
  for (const m of readFileSync(file, 'utf8').matchAll(/<a (?:name|id)="([^"]+)"/g)) set.add(m[1]!);
  anchorCache.set(file, set);
  return set;
}

function checkTarget(from: string, target: string, anchor: string | undefined): string | undefined {
  if (!existsSync(target)) return `${from}: ${relative(root, target)} does not exist`;
  if (anchor && target.endsWith('.md') && !anchorsOf(target).has(decodeURIComponent(anchor))) return `${from}: ${relative(root, target)} has no heading #${anchor}`;
  return undefined;
}

describe('the repository cites only what a clone holds', () => {
  it('no tracked file cites the design directory beside the repository or a design document', () => {
    const found: string[] = [];
    for (const f of textFiles) {
      if (f === 'test/docs/citations.test.ts') continue;
      readFileSync(join(root, f), 'utf8').split('\n').forEach((line, i) => {
        for (const [re, what] of FORBIDDEN) if (re.test(line)) found.push(`${f}:${i + 1}: ${what}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(found, 'cite docs/ instead (docs/interface-decisions.md holds the interface decisions)').toEqual([]);
  });

  it('every relative link in README.md and docs/ leads to a file and heading that exist', () => {
    const broken: string[] = [];
    for (const f of textFiles.filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')))) {
      const text = readFileSync(join(root, f), 'utf8').replace(/^\s*```[\s\S]*?^\s*```/gm, '').replace(/`[^`\n]*`/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const link = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
        const [path, anchor] = link.split('#');
        const problem = checkTarget(f, path ? resolve(dirname(join(root, f)), path) : join(root, f), anchor);
        if (problem) broken.push(`${problem} (link ${link})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every docs/….md#anchor cited in code, tests and scripts exists', () => {
    const broken: string[] = [];
    for (const f of textFiles) {
      const text = readFileSync(join(root, f), 'utf8');
      for (const m of text.matchAll(/(?<![\w./-])docs\/([\w./-]+?\.md)((?:#[\w-]+)(?:, #[\w-]+)*)?/g)) {
        const anchors = (m[2] ?? '').split(', ').map((a) => a.replace(/^#/, '')).filter(Boolean);
        for (const a of anchors.length ? anchors : [undefined]) {
          const problem = checkTarget(f, join(root, 'docs', m[1]!), a);
          if (problem) broken.push(`${problem} (cited as ${m[0]})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
