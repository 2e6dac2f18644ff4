// `svc --help` as the last run printed it, kept in the code cache's directory: the root help
// is the same text for the same bundle, the same width and the same colour settings, and
// building the whole command tree to print it again cost more than Node's own start (Node 26:
// 1.55x `node -e 0`). A run that finds it prints it without loading the bundle; one that does
// not (a first run, a new build, another width) builds the help as before and keeps what it
// printed for the next (src/main.ts). `svc help` always builds it.
import { fstatSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fnv1a } from './code-cache.js';
import { ROOT_HELP_SLOT, writeToFd1, type RootHelpSlot } from './help-output.js';

/**
 * For `svc --help` (or -h) alone: prints the kept help and returns true when there is one for
 * this bundle and terminal; otherwise returns false, with a slot for main to keep it in.
 */
export function printKeptRootHelp(args: readonly string[], main: string, cacheDir: string, env: Readonly<Record<string, string | undefined>>): boolean {
  if (args.length !== 1 || (args[0] !== '--help' && args[0] !== '-h')) return false;
  let key: string;
  try {
    const bundle = statSync(main);
    // The width help is laid out for (a terminal's columns; none when piped) and what decides colour.
    const columns = fstatSync(1).isCharacterDevice() && process.stdout.isTTY ? String(process.stdout.columns) : 'pipe';
    key = ['svc-root-help-1', bundle.size, bundle.mtimeMs, bundle.ino, columns, env.NO_COLOR ?? '-', env.FORCE_COLOR ?? '-', env.TERM ?? '-'].join('|');
  } catch {
    return false;
  }
  const file = join(cacheDir, `root-help-${fnv1a(key)}.txt`);
  let kept: string | undefined;
  try {
    const stored = readFileSync(file, 'utf8');
    const newline = stored.indexOf('\n');
    if (stored.slice(0, newline) === key) kept = stored.slice(newline + 1);
  } catch {
    // None kept yet.
  }
  if (kept !== undefined && kept !== '') {
    writeToFd1(kept, (rest) => process.stdout.write(rest));
    return true;
  }
  const slot: RootHelpSlot = {
    save(text) {
      const temp = `${file}.${process.pid}-${Date.now()}.tmp`;
      try {
        mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
        writeFileSync(temp, `${key}\n${text}`, { flag: 'wx', mode: 0o600 });
        renameSync(temp, file);
      } catch {
        // Read-only or full: the help is built again next time.
        try {
          rmSync(temp, { force: true });
        } catch {
          // Nothing was written.
        }
      }
    },
  };
  (globalThis as Record<symbol, unknown>)[ROOT_HELP_SLOT] = slot;
  return false;
}
