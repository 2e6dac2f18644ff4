// What bin/svc.js runs (as dist/start.cjs, built on its own): the bundle, with its compiled
// code cached between runs. Node 22.1+ has a compile cache of its own; before that the
// bundle is loaded through vm.Script with V8's cached data (./bundle-loader.ts).
import module from 'node:module';
import { join } from 'node:path';
import { loadBundle } from './bundle-loader.js';
import { codeCacheDir, openCodeCache } from './code-cache.js';

type ModuleWithCompileCache = typeof module & { enableCompileCache?: () => unknown };

export function start(bundleDir: string, env: Readonly<Record<string, string | undefined>>): void {
  const main = join(bundleDir, 'main.cjs');
  const nodeModule = module as ModuleWithCompileCache;
  if (typeof nodeModule.enableCompileCache === 'function') {
    try {
      nodeModule.enableCompileCache();
    } catch {
      // The cache is an optimisation only.
    }
    module.createRequire(main)(main);
    return;
  }
  // Node maps stack traces through the bundle's source maps (--enable-source-maps) only for
  // the files its own loader compiled.
  const cacheDir = process.sourceMapsEnabled ? undefined : codeCacheDir(env, bundleDir);
  if (cacheDir === undefined) module.createRequire(main)(main);
  else loadBundle(main, openCodeCache(cacheDir, bundleDir));
}
