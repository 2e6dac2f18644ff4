// Runs the bundle's CommonJS files (scripts/build.mjs) as Node's require() would, but
// compiled through vm.Script, which takes V8's cached data: most of a start-up's compile
// time is then a copy. The files of the bundle (relative requires) are loaded here; Node's
// built-in modules and the packages left in node_modules go to Node's own require().
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { Script } from 'node:vm';
import type { CodeCache } from './code-cache.js';

// Node's CommonJS wrapper, on the first line so that line numbers stay those of the file.
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const WRAPPER_TAIL = '\n})';

type ModuleFunction = (exports: unknown, require: (id: string) => unknown, module: { exports: unknown }, filename: string, dirname: string) => void;

/**
 * Runs `entry` and returns its exports. Files without usable cached data are compiled as
 * usual; when the process exits their data is written to `cache`, after the run, so that it
 * holds the functions the run compiled too and not only the files' top levels.
 * `beforePackage` runs once, before the first require that is not of a bundle file nor of a
 * `node:` built-in (a package left in node_modules, which Node's own loader compiles).
 */
export function loadBundle(entry: string, cache: CodeCache, beforePackage?: () => void): unknown {
  const modules = new Map<string, { exports: unknown }>();
  const uncached: { file: string; source: Buffer; script: Script }[] = [];
  const nodeRequire = createRequire(entry);
  let packageSeen = beforePackage === undefined;
  const requireOutside = (id: string): unknown => {
    if (!packageSeen && !id.startsWith('node:')) {
      packageSeen = true;
      beforePackage?.();
    }
    return nodeRequire(id);
  };

  const load = (file: string): unknown => {
    const known = modules.get(file);
    if (known) return known.exports;
    const source = readFileSync(file);
    const cachedData = cache.read(file, source);
    const script = new Script(WRAPPER_HEAD + source.toString('utf8') + WRAPPER_TAIL, { filename: file, cachedData });
    if (cachedData === undefined || script.cachedDataRejected) uncached.push({ file, source, script });
    const dir = dirname(file);
    // The bundle's own requires are ./name.cjs beside the file, or ./chunks/name.cjs from
    // main.cjs: no path to normalise (path.join for each of them was ~0.3 ms of a one-request
    // command). One with a . or an empty segment, or a backslash, goes through join.
    const require = (id: string) =>
      id.startsWith('./') && !id.includes('\\') && !id.includes('/.') && !id.includes('//')
        ? load(dir + sep + (sep === '/' ? id.slice(2) : id.slice(2).replaceAll('/', sep)))
        : id.startsWith('./') || id.startsWith('../')
          ? load(join(dir, id))
          : requireOutside(id);
    // In the map before it runs, as in Node: a cycle between files gets the exports so far.
    const module = { exports: {} };
    modules.set(file, module);
    try {
      (script.runInThisContext() as ModuleFunction)(module.exports, require, module, file, dir);
    } catch (error) {
      modules.delete(file);
      throw error;
    }
    return module.exports;
  };

  process.once('exit', () => {
    for (const { file, source, script } of uncached) cache.write(file, source, script.createCachedData());
  });
  return load(entry);
}
