// Ask real shells what they would complete. Each helper takes the script to load and the
// command line typed so far, and returns the candidates the shell offers.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { isCI } from '../../src/io/streams.js';
import { requireTools } from '../e2e/require-tools.js';

export const completionsDir = fileURLToPath(new URL('../../completions/', import.meta.url));
export const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';

export { requireTools };

/** Undefined when the bash-completion package is installed, else a skip reason; throws under CI, as requireTools does. */
export function requireBashCompletion(): string | undefined {
  if (existsSync(BASH_COMPLETION)) return undefined;
  const reason = `missing ${BASH_COMPLETION} (apt-get install bash-completion)`;
  if (isCI(process.env)) throw new Error(`CI must run this test: ${reason}`);
  return reason;
}

/** A suite's title that says why it is skipped, since vitest shows no reason of its own. */
export function suiteTitle(title: string, missing: string | undefined): string {
  return missing === undefined ? title : `${title} (skipped: ${missing})`;
}

/**
 * Runs `_svc` the way bash does on <Tab>: COMP_WORDS holds the words typed so far, the last
 * one (possibly empty) under the cursor. With `withBashCompletion` the bash-completion
 * package is loaded first, as on most desktops.
 */
export async function bashComplete(scriptFile: string, words: readonly string[], withBashCompletion = false, env: Record<string, string> = {}): Promise<string[]> {
  const program = [
    withBashCompletion ? `source ${BASH_COMPLETION}` : '',
    'source "$1"; shift',
    'COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}',
    '_svc svc "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const { stdout } = await execa('bash', ['--norc', '--noprofile', '-c', program, 'bash', scriptFile, ...words], {
    env: { LC_ALL: 'C', ...env },
    timeout: 10_000,
  });
  return lines(stdout);
}

/** What `complete -C` lists in fish: "candidate<TAB>description" lines. */
export async function fishComplete(scriptFile: string, line: string, env: Record<string, string> = {}): Promise<string[]> {
  const home = await mkdtemp(join(tmpdir(), 'svc-fish-'));
  try {
    const { stdout } = await execa('fish', ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', scriptFile, line], {
      // fish keeps universal variables under XDG_CONFIG_HOME; keep them out of the real home.
      env: { HOME: home, XDG_CONFIG_HOME: home, XDG_DATA_HOME: home, XDG_CACHE_HOME: home, ...env },
      timeout: 10_000,
    });
    return lines(stdout);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/**
 * What zsh's completion system offers, as "candidate -- description" lines (see
 * zsh-capture.zsh). `script` is a directory in which compinit finds `_svc`, as when
 * installed, or a file to source after compinit.
 */
export async function zshComplete(script: string, line: string, env: Record<string, string> = {}): Promise<string[]> {
  const home = await mkdtemp(join(tmpdir(), 'svc-zsh-'));
  try {
    const capture = fileURLToPath(new URL('zsh-capture.zsh', import.meta.url));
    const { stdout } = await execa('zsh', ['-f', capture, script, line], {
      env: { HOME: home, ZDOTDIR: home, TERM: 'dumb', ...env },
      timeout: 20_000,
    });
    return lines(stdout);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** Writes a script to a fresh directory under the given file name; returns that directory. */
export async function scriptDir(name: string, script: string): Promise<{ dir: string; file: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-completion-'));
  const file = join(dir, name);
  await writeFile(file, script);
  return { dir, file, remove: () => rm(dir, { recursive: true, force: true }) };
}

function lines(stdout: string): string[] {
  return stdout
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l !== '');
}
