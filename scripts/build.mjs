// Bundles src/main.ts into dist/ with code splitting: the entry holds only the command
// tree; each verb (and heavy dependencies such as @inquirer, cli-table3 or the sandbox) is a
// separate chunk loaded when that verb runs.
//
// The files are CommonJS (.cjs), in two steps: esbuild splits code only in ESM output, so the
// split ESM files are written to a staging directory first, then each is converted to
// CommonJS (a dynamic import() becoming a require() in a promise). CommonJS because Node 20
// can run it from V8's code cache (src/startup/), and loads it synchronously, without the
// ESM loader's resolution and file reads per module.
import { build } from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { jqRuntimeFile, patchedJqRuntime } from './jq-runtime.mjs';

// Worker entry points must be files of their own (new Worker(url) loads them by path).
const entryPoints = ['src/main.ts', 'src/crypto/decrypt-worker.ts'].filter((p) => existsSync(p));

// commander requires node:child_process at load time, only to run executable subcommands,
// which svc has none of; loading it costs about 1.5 ms of every start-up (bench/startup.mjs).
// Commander gets a stand-in that loads the real module on first use.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'node:child_process', namespace: 'lazy' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents: "let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
  },
};

// undici's HTTP/1.1 client requires its HTTP/2 one at load time, and with it node:http2 and
// node:tls, about 12 ms of every command that makes a request; svc never negotiates h2. The
// HTTP/2 client gets a stand-in that loads it (still from the bundle) on first use. Should a
// newer undici move the file, the stand-in is simply not used.
const lazyHttp2Client = {
  name: 'lazy-undici-h2',
  setup(b) {
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/.test(args.importer)
        ? { path: 'undici/lib/dispatcher/client-h2.js', namespace: 'lazy-h2', pluginData: dirname(args.importer) }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-h2' }, (args) => ({
      contents: "let real; module.exports = function connectH2(...args) { return (real ??= require('./client-h2.js'))(...args); };",
      loader: 'js',
      resolveDir: args.pluginData,
    }));
  },
};

// zod's classic API re-exports every locale (`z.locales`), about 350 KB of its 700 KB chunk,
// which each command that validates parses at start-up; svc uses only the default English
// messages, which zod configures from locales/en.js itself. `z.locales` keeps only `en`.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]v4[\\/](classic|core|mini)[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'zod-locales' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), 'en.js'))};`,
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
};

// jq for --jq: its runtime in the bundle (a chunk of its own, loaded with the flag), its
// binary beside it as dist/jq.wasm; see scripts/jq-runtime.mjs.
const jq = patchedJqRuntime();
const jqRuntime = {
  name: 'jq-runtime',
  setup(b) {
    b.onResolve({ filter: /^jq-wasm\/dist\/build\/jq\.js$/ }, () => ({ path: jqRuntimeFile, namespace: 'jq-runtime' }));
    b.onLoad({ filter: /.*/, namespace: 'jq-runtime' }, () => ({ contents: jq.source, loader: 'js' }));
  },
};

const staging = await mkdtemp(join(tmpdir(), 'svc-build-'));
try {
  await build({
    entryPoints,
    outdir: staging,
    outbase: 'src',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.17',
    sourcemap: 'linked',
    minifySyntax: true,
    legalComments: 'none',
    chunkNames: 'chunks/[name]-[hash]',
    // Named .cjs already, so that imports between the files name what they will be.
    outExtension: { '.js': '.cjs' },
    // Native addons, browsers and packages that read their own data files stay in node_modules.
    external: ['@napi-rs/keyring', 'playwright-core', 'pdfkit', 'libsql', 'pg'],
    plugins: [lazyChildProcess, lazyHttp2Client, zodEnglishOnly, jqRuntime],
    define: { __SVC_VERSION__: JSON.stringify(JSON.parse(readFileSync('package.json', 'utf8')).version) },
    logLevel: 'warning',
  });

  await rm('dist', { recursive: true, force: true });
  await mkdir('dist', { recursive: true });
  await writeFile('dist/jq.wasm', jq.wasm);
  const files = (await readdir(staging, { recursive: true })).filter((f) => f.endsWith('.cjs')).map((f) => join(staging, f));
  // import.meta.url (file lookups beside the bundle) becomes the file's own URL; the
  // modules were ESM, hence strict mode everywhere.
  const usesImportMeta = (file) => readFileSync(file, 'utf8').includes('import.meta');
  const toCommonJs = (entryPoints, banner) =>
    build({
      entryPoints,
      outdir: 'dist',
      outbase: staging,
      outExtension: { '.js': '.cjs' },
      format: 'cjs',
      platform: 'node',
      target: 'node20.17',
      // Follows the staged files' source maps, so dist/ maps to src/ and node_modules/.
      sourcemap: 'linked',
      legalComments: 'none',
      supported: { 'dynamic-import': false },
      define: { 'import.meta.url': '__svcModuleUrl' },
      banner: { js: banner },
      logLevel: 'warning',
    });
  await toCommonJs(files.filter((f) => !usesImportMeta(f)), '"use strict";');
  await toCommonJs(files.filter(usesImportMeta), '"use strict"; const __svcModuleUrl = require("node:url").pathToFileURL(__filename).href;');

  // What bin/svc.js runs first: it loads the bundle, so it is no part of it.
  await build({
    entryPoints: ['src/startup/start.ts'],
    outfile: 'dist/start.cjs',
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20.17',
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
} finally {
  await rm(staging, { recursive: true, force: true });
}
