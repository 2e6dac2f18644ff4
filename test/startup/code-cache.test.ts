// The code cache (src/startup/): cached data is used only when it was made from
// the same source and arrived whole; anything else is ignored and the program runs as
// usual. Processes run a small CommonJS bundle through the loader, built from the sources.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeCacheDir, openCodeCache } from '../../src/startup/code-cache.js';

const run = promisify(execFile);
let dir: string;
let loader: string;
let bundle: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-code-cache-'));
  loader = join(dir, 'loader.cjs');
  // argv: the bundle's entry and the cache directory.
  await build({
    stdin: {
      contents: `import { dirname } from 'node:path';
        import { loadBundle } from './bundle-loader.js';
        import { openCodeCache } from './code-cache.js';
        const [entry, cacheDir] = process.argv.slice(2);
        loadBundle(entry, openCodeCache(cacheDir, dirname(entry)));`,
      resolveDir: join(import.meta.dirname, '../../src/startup'),
      loader: 'ts',
    },
    outfile: loader,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    logLevel: 'error',
  });
  bundle = join(dir, 'bundle');
  mkdirSync(join(bundle, 'chunks'), { recursive: true });
  writeFileSync(
    join(bundle, 'main.cjs'),
    `"use strict";
const { total } = require("./chunks/sum.cjs");
const { join } = require("node:path");
module.exports = { answer: total([1, 2, 3]) };
process.stdout.write(join("sum", String(module.exports.answer)) + " " + __filename.endsWith("main.cjs") + "\\n");`,
  );
  writeFileSync(join(bundle, 'chunks', 'sum.cjs'), `"use strict";\nexports.total = (xs) => xs.reduce((a, b) => a + b, 0);\n`);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function runBundle(cacheDir: string): Promise<string> {
  const { stdout } = await run(process.execPath, [loader, join(bundle, 'main.cjs'), cacheDir]);
  return stdout;
}

const entries = (cacheDir: string) => readdirSync(cacheDir).sort();
const inode = (path: string) => statSync(path).ino;

describe('the code cache', () => {
  it('is written on the first run, for every file of the bundle, and used as it is on the next', async () => {
    const cacheDir = join(dir, 'first');
    expect(await runBundle(cacheDir)).toBe('sum/6 true\n');
    expect(entries(cacheDir)).toEqual(['chunks+sum.cjs.v8cache', 'main.cjs.v8cache']);
    const main = join(cacheDir, 'main.cjs.v8cache');
    const before = inode(main);
    expect(await runBundle(cacheDir)).toBe('sum/6 true\n');
    // Rewritten only when missing or refused; a rename would have given a new inode.
    expect(inode(main)).toBe(before);
  });

  it('ignores a damaged, truncated or foreign file, runs as usual and writes a good one', async () => {
    const cacheDir = join(dir, 'damaged');
    await runBundle(cacheDir);
    const main = join(cacheDir, 'main.cjs.v8cache');
    const sum = join(cacheDir, 'chunks+sum.cjs.v8cache');
    const good = readFileSync(main);
    const source = readFileSync(join(bundle, 'main.cjs'));
    const cache = openCodeCache(cacheDir, bundle);
    expect(cache.read(join(bundle, 'main.cjs'), source)).toBeDefined();

    const flippedAt = (offset: number) => {
      const bytes = Buffer.from(good);
      bytes[offset]! ^= 0x10;
      return bytes;
    };
    // Header and source copy, then the data and its copy.
    const dataStart = 16 + source.length;
    const damaged = [
      ...[9, 20, dataStart + 40, good.length - 8].map(flippedAt),
      good.subarray(0, good.length - 16),
      Buffer.from('not a cache'),
      Buffer.alloc(0),
      readFileSync(sum),
    ];
    for (const bytes of damaged) {
      writeFileSync(main, bytes);
      expect(cache.read(join(bundle, 'main.cjs'), source)).toBeUndefined();
      const before = inode(main);
      expect(await runBundle(cacheDir)).toBe('sum/6 true\n');
      expect(inode(main)).not.toBe(before);
      expect(cache.read(join(bundle, 'main.cjs'), source)).toBeDefined();
    }
  });

  it('does not use data made from another version of the file, even of the same length', async () => {
    const cacheDir = join(dir, 'other-source');
    const cache = openCodeCache(cacheDir, bundle);
    const file = join(bundle, 'main.cjs');
    cache.write(file, Buffer.from('exports.a = 1;'), Buffer.from('some V8 data'));
    expect(cache.read(file, Buffer.from('exports.a = 1;'))).toEqual(Buffer.from('some V8 data'));
    expect(cache.read(file, Buffer.from('exports.a = 2;'))).toBeUndefined();
  });

  it('twelve first runs at once all succeed and leave a complete cache, no temporary file', async () => {
    const cacheDir = join(dir, 'parallel');
    const outputs = await Promise.all(Array.from({ length: 12 }, () => runBundle(cacheDir)));
    expect(outputs).toEqual(Array(12).fill('sum/6 true\n'));
    expect(entries(cacheDir)).toEqual(['chunks+sum.cjs.v8cache', 'main.cjs.v8cache']);
    const cache = openCodeCache(cacheDir, bundle);
    expect(cache.read(join(bundle, 'main.cjs'), readFileSync(join(bundle, 'main.cjs')))).toBeDefined();
    expect(cache.read(join(bundle, 'chunks', 'sum.cjs'), readFileSync(join(bundle, 'chunks', 'sum.cjs')))).toBeDefined();
  });

  it('where it cannot be written, the program runs as usual and nothing is written, beside the bundle either', async () => {
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, '');
    const bundleFiles = readdirSync(bundle, { recursive: true }).sort();
    expect(await runBundle(join(blocker, 'cache'))).toBe('sum/6 true\n');
    expect(readdirSync(bundle, { recursive: true }).sort()).toEqual(bundleFiles);
    if (process.getuid?.() === 0) return; // root writes through permissions
    const readOnly = join(dir, 'read-only');
    mkdirSync(readOnly, { mode: 0o500 });
    expect(await runBundle(join(readOnly, 'cache'))).toBe('sum/6 true\n');
    expect(readdirSync(readOnly)).toEqual([]);
  });

  it('drops the entries of files gone from the bundle and the directories of installs unused for a month', async () => {
    const root = join(dir, 'pruned');
    const cacheDir = join(root, '11.3.244.8-node.19-x64-01234567');
    const oldInstall = join(root, '11.3.244.8-node.19-x64-abcdefab');
    const recentInstall = join(root, '11.3.244.8-node.19-x64-01234501');
    const notOurs = join(root, 'notes');
    mkdirSync(oldInstall, { recursive: true });
    mkdirSync(recentInstall, { recursive: true });
    mkdirSync(notOurs, { recursive: true });
    const monthsAgo = new Date(Date.now() - 40 * 24 * 3_600_000);
    utimesSync(oldInstall, monthsAgo, monthsAgo);
    utimesSync(notOurs, monthsAgo, monthsAgo);
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(join(cacheDir, 'chunks+gone-ABC.cjs.v8cache'), 'x');
    await runBundle(cacheDir);
    expect(entries(cacheDir)).toEqual(['chunks+sum.cjs.v8cache', 'main.cjs.v8cache']);
    expect(readdirSync(root).sort()).toEqual([cacheDir, notOurs, recentInstall].map((p) => p.slice(root.length + 1)).sort());
  });
});

describe('where the code cache lives', () => {
  it('under XDG_CACHE_HOME (else ~/.cache), one directory per V8, copy of the bundle and Node options; none with NODE_DISABLE_COMPILE_CACHE', () => {
    const a = codeCacheDir({ XDG_CACHE_HOME: '/c', HOME: '/h' }, '/opt/svc/dist');
    expect(a).toMatch(new RegExp(`^/c/svc/code-cache/${process.versions.v8.replace(/\./g, '\\.')}-${process.arch}-[0-9a-f]{8}$`));
    expect(codeCacheDir({ HOME: '/h' }, '/opt/svc/dist')).toMatch(/^\/h\/\.cache\/svc\/code-cache\//);
    expect(codeCacheDir({ XDG_CACHE_HOME: '/c' }, '/elsewhere/dist')).not.toBe(a);
    expect(codeCacheDir({ XDG_CACHE_HOME: '/c', NODE_OPTIONS: '--max-old-space-size=4096' }, '/opt/svc/dist')).not.toBe(a);
    expect(codeCacheDir({ XDG_CACHE_HOME: '/c', NODE_DISABLE_COMPILE_CACHE: '1' }, '/opt/svc/dist')).toBeUndefined();
    expect(codeCacheDir({ XDG_CACHE_HOME: 'relative', HOME: '/h' }, '/opt/svc/dist')).toMatch(/^\/h\/\.cache\/svc\//);
  });
});

describe('requires in the bundle', () => {
  it('resolves ./ and ../ beside the requiring file, and calls beforePackage once, before the first require that is not a node: built-in', async () => {
    const hooked = join(dir, 'hooked-loader.cjs');
    await build({
      stdin: {
        contents: `import { dirname } from 'node:path';
          import { loadBundle } from './bundle-loader.js';
          import { openCodeCache } from './code-cache.js';
          const [entry, cacheDir] = process.argv.slice(2);
          globalThis.__log = [];
          loadBundle(entry, openCodeCache(cacheDir, dirname(entry)), () => globalThis.__log.push('beforePackage'));`,
        resolveDir: join(import.meta.dirname, '../../src/startup'),
        loader: 'ts',
      },
      outfile: hooked,
      bundle: true,
      format: 'cjs',
      platform: 'node',
      logLevel: 'error',
    });
    const tree = join(dir, 'requires');
    mkdirSync(join(tree, 'chunks'), { recursive: true });
    writeFileSync(join(tree, 'top.cjs'), `"use strict";\nglobalThis.__log.push("top");\n`);
    writeFileSync(join(tree, 'chunks', 'b.cjs'), `"use strict";\nglobalThis.__log.push("b");\n`);
    writeFileSync(join(tree, 'chunks', 'a.cjs'), `"use strict";\nrequire("./b.cjs");\nrequire("../top.cjs");\nrequire("./b.cjs");\nglobalThis.__log.push("a");\n`);
    writeFileSync(
      join(tree, 'main.cjs'),
      `"use strict";
require("./chunks/a.cjs");
require("node:path"); globalThis.__log.push("node:path");
require("path"); globalThis.__log.push("path");
require("os"); globalThis.__log.push("os");
process.stdout.write(globalThis.__log.join(","));`,
    );
    for (let i = 0; i < 2; i++) {
      const { stdout } = await run(process.execPath, [hooked, join(tree, 'main.cjs'), join(dir, 'requires-cache')]);
      // Each file once, whatever the path it was asked by; the hook once, before "path".
      expect(stdout).toBe('b,top,a,node:path,beforePackage,path,os');
    }
  });
});
