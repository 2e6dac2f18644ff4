// Bundles src/main.ts into dist/ with code splitting: the entry holds only the command
// tree; each verb (and heavy dependencies such as ora, cli-table3 or the sandbox) is a
// separate chunk loaded by dynamic import when that verb runs.
import { build } from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

// Worker entry points must be files of their own (new Worker(url) loads them by path).
const entryPoints = ['src/main.ts', 'src/crypto/decrypt-worker.ts', 'src/credit-notes/queue-worker.ts'].filter((p) => existsSync(p));

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

await rm('dist', { recursive: true, force: true });
await build({
  entryPoints,
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.17',
  sourcemap: 'linked',
  minifySyntax: true,
  legalComments: 'none',
  chunkNames: 'chunks/[name]-[hash]',
  // Native addons, browsers and packages that read their own data files stay in node_modules.
  external: ['@napi-rs/keyring', 'playwright-core', 'pdfkit', 'libsql', 'pg', 'jq-wasm'],
  plugins: [lazyChildProcess, lazyHttp2Client, zodEnglishOnly],
  // Bundled CommonJS dependencies call require(); give them one in ESM output.
  banner: {
    js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);",
  },
  define: { __SVC_VERSION__: JSON.stringify(JSON.parse(readFileSync('package.json', 'utf8')).version) },
  logLevel: 'warning',
});
