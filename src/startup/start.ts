// What bin/svc.js runs (as dist/start.cjs, built on its own): the bundle, with its compiled
// code cached between runs by ./bundle-loader.ts. Node 22.1+ has a compile cache of its own,
// enabled too, for what Node's loader compiles (the packages left in node_modules); it keeps a
// file's code as compiled before it runs, without the functions a run compiles, so the bundle
// still goes through loadBundle (Node 26: svc --help 1.51x -> 1.38x node -e 0, sandbox outbox
// 1.80x -> 1.58x a bare request). It is enabled when the first such package is required:
// enabling it costs ~0.17 ms, and most commands load none.
import module from 'node:module';
import { join } from 'node:path';
import { loadBundle } from './bundle-loader.js';
import { codeCacheDir, openCodeCache } from './code-cache.js';
import { printKeptRootHelp } from './root-help.js';

type ModuleWithCompileCache = typeof module & { enableCompileCache?: () => unknown };

export function start(bundleDir: string, env: Readonly<Record<string, string | undefined>>): void {
  const main = join(bundleDir, 'main.cjs');
  // Node maps stack traces through the bundle's source maps (--enable-source-maps) only for
  // the files its own loader compiled.
  const cacheDir = process.sourceMapsEnabled ? undefined : codeCacheDir(env, bundleDir);
  if (cacheDir !== undefined && printKeptRootHelp(process.argv.slice(2), main, cacheDir, env)) return;
  if (cacheDir === undefined) {
    enableCompileCache();
    module.createRequire(main)(main);
  } else loadBundle(main, openCodeCache(cacheDir, bundleDir), enableCompileCache);
}

function enableCompileCache(): void {
  try {
    (module as ModuleWithCompileCache).enableCompileCache?.();
  } catch {
    // The cache is an optimisation only.
  }
}
