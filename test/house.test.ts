import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { ALLOWED, analyze, FLOORS, importsOf } from '../scripts/house.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('the house of src/', () => {
  it('has no circle spanning rooms and no upward import outside the allow list', () => {
    const house = analyze({ srcDir: join(root, 'src') });
    expect(house.problems).toEqual([]);
    expect(house.fileCycles.filter((c) => c.rooms.length > 1)).toEqual([]);
    expect(house.upward.filter((e) => e.reason === undefined)).toEqual([]);
  });

  it('allows at most 5 upward imports, each with its one-line reason', () => {
    const reasons = Object.values(ALLOWED);
    expect(reasons.length).toBeLessThanOrEqual(5);
    for (const reason of reasons) expect(reason).toMatch(/^[^\n]{10,}$/);
    for (const floor of FLOORS) expect(floor.why).toMatch(/^[^\n]{10,}$/);
  });

  it('`npm run house` prints the floors, the upward imports and the circles', async () => {
    const { stdout } = await execa('npm', ['run', '--silent', 'house'], { cwd: root });
    expect(stdout).toMatch(/^The house of src\/: \d+ rooms/);
    expect(stdout).toContain('Floors as drawn from the imports');
    expect(stdout).toContain('Floors as intended');
    expect(stdout).toContain('Upward imports: ');
    expect(stdout).toContain('Circles of files: ');
    expect(stdout).toMatch(/No problems\.$/);
  });
});

describe('the house analysis', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  function tree(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), 'svc-house-'));
    dirs.push(dir);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  }
  const floors = [
    { rooms: ['low', 'errors'], why: 'the lowest floor of the example' },
    { rooms: ['mid'], why: 'the middle floor of the example' },
    { rooms: ['top'], why: 'the highest floor of the example' },
  ];

  it('reads import, import type, export-from, import() and import("…") types', () => {
    const found = importsOf(
      [
        "import { a } from './a.js';",
        "import type { B } from './b.js';",
        "import { type C } from './c.js';",
        "export { d } from './d.js';",
        "export type { E } from './e.js';",
        "const f = await import('./f.js');",
        "let g: import('./g.js').G;",
        "import 'node:fs';",
      ].join('\n'),
    );
    expect(found).toEqual([
      { specifier: './a.js', kind: 'static' },
      { specifier: './b.js', kind: 'type' },
      { specifier: './c.js', kind: 'type' },
      { specifier: './d.js', kind: 're-export' },
      { specifier: './e.js', kind: 're-export' },
      { specifier: './f.js', kind: 'dynamic' },
      { specifier: './g.js', kind: 'type' },
      { specifier: 'node:fs', kind: 'static' },
    ]);
  });

  it('finds an upward import, a type-only or dynamic one too, unless allowed with a reason', () => {
    const srcDir = tree({
      'errors.ts': 'export class E {}\n',
      'low/a.ts': "import type { T } from '../top/t.js';\nexport const a = 1;\n",
      'mid/m.ts': "import { a } from '../low/a.js';\nexport const m = () => import('../top/t.js');\n",
      'top/t.ts': "import { E } from '../errors.js';\nexport type T = number;\nexport const e = E;\n",
    });
    const house = analyze({ srcDir, floors });
    expect(house.upward.map((e) => `${e.from} → ${e.to} ${e.kind}`)).toEqual(['low/a.ts → top/t.ts type', 'mid/m.ts → top/t.ts dynamic']);
    expect(house.problems).toContain('upward import low/a.ts → top/t.ts (type): low is below top');
    expect(house.problems).toContain('upward import mid/m.ts → top/t.ts (dynamic): mid is below top');

    const allowed = analyze({ srcDir, floors, allowed: { 'low/a.ts → top/t.ts': 'a type the top floor owns', 'mid/m.ts → top/t.ts': 'loaded only when needed' } });
    expect(allowed.problems).toEqual([]);
    const stale = analyze({ srcDir, floors, allowed: { 'low/a.ts → top/t.ts': 'a', 'mid/m.ts → top/t.ts': 'b', 'low/a.ts → mid/m.ts': 'gone' } });
    expect(stale.problems).toEqual(['ALLOWED names low/a.ts → mid/m.ts, which is no upward import (any more): remove it']);
  });

  it('finds a circle of files across rooms (Tarjan), and a circle of rooms on one floor', () => {
    const srcDir = tree({
      'errors.ts': "import { x } from './low/x.js';\nexport const e = x;\n",
      'low/x.ts': "import { e } from '../errors.js';\nexport const x = 1;\nexport const y = () => e;\n",
      'mid/m.ts': "import { x } from '../low/x.js';\nexport const m = x;\n",
      'top/t.ts': "import { m } from '../mid/m.js';\nexport const t = m;\n",
    });
    const house = analyze({ srcDir, floors });
    expect(house.fileCycles).toEqual([{ files: ['errors.ts', 'low/x.ts'], rooms: ['errors', 'low'], circle: ['errors.ts', 'low/x.ts', 'errors.ts'] }]);
    expect(house.problems).toEqual([
      'a circle of 2 files spans rooms errors, low: errors.ts → low/x.ts → errors.ts',
      'a circle of 2 rooms (errors, low), not only through allowed upward imports: errors → low → errors',
    ]);
    expect(house.drawn).toEqual([['errors', 'low'], ['mid'], ['top']]);
  });

  it('names a room that is on no floor', () => {
    const srcDir = tree({ 'errors.ts': 'export {};\n', 'attic/a.ts': 'export {};\n' });
    expect(analyze({ srcDir, floors }).problems).toEqual(['room attic is on no floor of FLOORS (scripts/house.mjs)']);
  });
});
