// What runs before a command starts, held still: for `svc --version`, `svc --help`, a
// command that makes one request (`svc sandbox outbox` against a sandbox) and one that goes
// through the ledger (`svc receipt send`, which loads libsql), the source modules
// in the bundle files loaded (read from their source maps), the packages loaded from
// node_modules, Node's public built-in modules, and the bytes of JavaScript in the bundle
// files loaded. A timed benchmark (bench/startup.mjs) is too noisy on a shared machine to
// fail on; these lists are not: a module, package or built-in new on these paths fails the
// test by name, as does the bundle's JavaScript growing by more than 2%. Start-up slipped
// from 1.16x to 1.42x `node -e 0` once without anyone noticing (an ICU segmenter made at
// load, node:fs/promises imported for one read). When the growth is meant, rewrite the
// expected lists with UPDATE_STARTUP_GUARD=1 (docs/contributing.md) and commit them.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSvcHome, repoRoot, runSvc, startSandbox, tempDirs, type SandboxProcess, type SvcHome } from './helpers.js';
import { receiptDatedToday } from './merchant.js';

const expectedFile = join(repoRoot, 'test', 'e2e', 'startup-guard.expected.json');
const update = process.env.UPDATE_STARTUP_GUARD === '1';
/** How much the JavaScript compiled may grow before the test fails: a line or two of a fix, not a module. */
const BYTES_MARGIN = 0.02;
const nodeMajor = process.versions.node.split('.')[0] ?? '';

interface Loaded {
  /** Source modules (src/…, node_modules/<package>, esbuild's own stand-ins) of what ran. */
  modules: string[];
  /** Node's public built-in modules loaded by exit. */
  builtins: string[];
  /** Bytes of the bundle's .cjs files read to run. */
  bytes: number;
}

interface Expected {
  modules: string[];
  bytes: number;
  /** By Node major version: Node's own modules load others in each release. */
  builtins: Record<string, string[]>;
}

// Run with --require before bin/svc.js: records the bundle files read (the bundle loader
// and Node's own loader both read them through fs.readFileSync) and, at exit, the packages
// Node's loader loaded and Node's built-ins.
const hookSource = (out: string, dist: string) => `
const fs = require('node:fs');
const read = fs.readFileSync;
const files = new Set();
fs.readFileSync = function (file, ...rest) {
  if (typeof file === 'string' && file.startsWith(${JSON.stringify(dist)}) && file.endsWith('.cjs')) files.add(file);
  return read.call(this, file, ...rest);
};
process.on('exit', () => {
  // Loaded by Node's loader (which sets a module's paths as it loads it); not a module put in
  // the cache ready-made, as the ledger's answer for detect-libc (src/store/embedded/database.ts).
  const required = Object.keys(require.cache).filter((f) => f.includes('node_modules') && Array.isArray(require.cache[f].paths));
  const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13));
  fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify({ files: [...files], required, builtins }));
});
`;

/** A source path of a source map, as a stable name: src/…, node_modules/<package>, or as it is. */
function moduleName(source: string): string | undefined {
  const pkg = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (pkg) return `node_modules/${pkg[1]}`;
  const src = /(?:^|\/)(src\/.*)$/.exec(source);
  if (src) return src[1];
  // A chunk of esbuild's helpers, staged under a temporary directory while building: no module of ours.
  if (/svc-build-/.test(source)) return undefined;
  return source;
}

const dirs = tempDirs();
let sandbox: SandboxProcess;
let ledgerHome: SvcHome;
let apiKey: string;
const receipts: string[] = [];
beforeAll(async () => {
  sandbox = await startSandbox();
  ledgerHome = await makeSvcHome(dirs);
  apiKey = (JSON.parse(await readFile(join(repoRoot, 'fixtures', 'sandbox.json'), 'utf8')) as { companies: { apiKey: string }[] }).companies[0]!.apiKey;
  // Two a run of the test; more, so that a retried run has its own too.
  for (let i = 0; i < 6; i++) receipts.push(await receiptDatedToday(dirs, `GUARD-${process.pid}-${i}`));
});
afterAll(async () => {
  await sandbox?.stop();
  await dirs.cleanup();
});

async function loaded(args: () => string[], env: Record<string, string> = {}, home?: SvcHome): Promise<Loaded> {
  const dir = await dirs.make('svc-startup-guard-');
  const hook = join(dir, 'hook.cjs');
  const out = join(dir, 'loaded.json');
  const dist = join(repoRoot, 'dist') + '/';
  await writeFile(hook, hookSource(out, dist));
  // Twice: the first run of a fresh build writes its code cache at exit; the second is the usual start-up.
  for (let i = 0; i < 2; i++) {
    const run = await runSvc(args(), { env: { NODE_OPTIONS: `--require "${hook}"`, ...env }, ...(home === undefined ? {} : { home }) });
    expect(run.exitCode, run.stderr).toBe(0);
  }
  const seen = JSON.parse(await readFile(out, 'utf8')) as { files: string[]; required: string[]; builtins: string[] };
  const modules = new Set<string>();
  let bytes = 0;
  for (const file of seen.files) {
    bytes += statSync(file).size;
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    for (const source of map.sources) {
      // A plugin's stand-in (lazy:node:child_process) is named by its namespace, not a path.
      const name = /^[a-z0-9-]+:/.test(source) ? source : moduleName(resolve(dirname(file), source).replaceAll('\\', '/'));
      if (name !== undefined) modules.add(name);
    }
  }
  for (const file of seen.required) {
    const name = moduleName(file.replaceAll('\\', '/'));
    if (name !== undefined) modules.add(name);
  }
  return {
    modules: [...modules].sort(),
    builtins: [...new Set(seen.builtins.filter((b) => !b.startsWith('internal/')))].sort(),
    bytes,
  };
}

const commands: { name: string; args: () => string[]; env: () => Record<string, string>; home?: () => SvcHome }[] = [
  { name: 'svc --version', args: () => ['--version'], env: () => ({}) },
  // The second run prints the help the first kept (src/startup/root-help.ts); `svc help` builds it each time.
  { name: 'svc --help', args: () => ['--help'], env: () => ({}) },
  { name: 'svc help (the root help built)', args: () => ['help'], env: () => ({}) },
  { name: 'svc sandbox outbox (one request)', args: () => ['sandbox', 'outbox', '--json'], env: () => ({ SVC_BASE_URL: sandbox.url }) },
  // A receipt of its own each run (the first creates the ledger; the second opens it as usual).
  {
    name: 'svc receipt send (the ledger)',
    args: () => ['receipt', 'send', '--file', receipts.shift()!, '--email', 'bob@example.com', '--json'],
    env: () => ({ SVC_BASE_URL: sandbox.url, SVC_API_KEY: apiKey }),
    home: () => ledgerHome,
  },
];

const readExpected = (): Record<string, Expected> => {
  try {
    return JSON.parse(readFileSync(expectedFile, 'utf8')) as Record<string, Expected>;
  } catch {
    return {};
  }
};
const results: Record<string, Loaded> = {};

describe('what loads before a command starts (test/e2e/startup-guard.expected.json)', () => {
  afterAll(() => {
    if (!update || Object.keys(results).length !== commands.length) return;
    const previous = readExpected();
    const next: Record<string, Expected> = {};
    for (const { name } of commands) {
      const now = results[name]!;
      next[name] = { modules: now.modules, bytes: now.bytes, builtins: { ...previous[name]?.builtins, [nodeMajor]: now.builtins } };
    }
    writeFileSync(expectedFile, `${JSON.stringify(next, null, 2)}\n`);
  });

  for (const command of commands) {
    it(command.name, async () => {
      const now = await loaded(command.args, command.env(), command.home?.());
      results[command.name] = now;
      if (update) return;
      const expected = readExpected()[command.name];
      expect(expected, `no expected lists for ${command.name}: run UPDATE_STARTUP_GUARD=1 npx vitest run test/e2e/startup-guard.test.ts`).toBeDefined();
      const hint = 'if this is meant, rewrite the lists with UPDATE_STARTUP_GUARD=1 npx vitest run test/e2e/startup-guard.test.ts (docs/contributing.md)';
      const newModules = now.modules.filter((m) => !expected!.modules.includes(m));
      expect(newModules, `${command.name} now loads ${newModules.join(', ')} before it starts; ${hint}`).toEqual([]);
      const expectedBuiltins = expected!.builtins[nodeMajor];
      if (expectedBuiltins !== undefined) {
        const newBuiltins = now.builtins.filter((b) => !expectedBuiltins.includes(b));
        expect(newBuiltins, `${command.name} now loads Node's ${newBuiltins.map((b) => `node:${b}`).join(', ')} before it starts; ${hint}`).toEqual([]);
      }
      const limit = Math.floor(expected!.bytes * (1 + BYTES_MARGIN));
      expect(
        now.bytes,
        `${command.name} compiles ${now.bytes} bytes of the bundle, ${(((now.bytes - expected!.bytes) / expected!.bytes) * 100).toFixed(1)}% over the ${expected!.bytes} expected (at most ${BYTES_MARGIN * 100}% more); ${hint}`,
      ).toBeLessThanOrEqual(limit);
    });
  }
});
