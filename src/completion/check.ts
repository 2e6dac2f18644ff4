// Whether a new interactive shell of this account completes `svc`: the shell itself is asked,
// with the account's own startup files, because reading them cannot tell (a .bashrc from
// /etc/skel names bash-completion whether or not the package is installed).
import { execFile } from 'node:child_process';
import type { Shell } from './generate.js';

const MARK = '__svc_completion:';

// bash-completion loads a command's script on its first <Tab>; the probe asks its loader
// (_comp_load from 2.12, __load_completion before) the same way.
const PROBES: Record<Shell, { args: string[]; works: (answer: string) => boolean }> = {
  bash: {
    args: [
      '-i',
      '-c',
      'complete -p svc >/dev/null 2>&1 || { declare -F _comp_load >/dev/null && _comp_load svc; } >/dev/null 2>&1 || ' +
        '{ declare -F __load_completion >/dev/null && __load_completion svc; } >/dev/null 2>&1; ' +
        `printf '\\n${MARK}%s\\n' "$(complete -p svc 2>/dev/null)"`,
    ],
    works: (answer) => /-F _svc\b/.test(answer),
  },
  zsh: { args: ['-i', '-c', `print -r -- "\n${MARK}\${_comps[svc]-}"`], works: (answer) => answer === '_svc' },
  // fish completes only commands it can find: a stand-in when svc is not on PATH (run as node bin/svc.js).
  fish: {
    args: ['-c', `type -q svc; or function svc; end; printf '\\n${MARK}%s\\n' (complete -C 'svc credit-note po' | string join ,)`],
    works: (answer) => answer.includes('poll'),
  },
};

export type ShellCheck = { ran: true; works: boolean } | { ran: false; reason: string };

/** Runs the shell as the account's next terminal would, and asks it. */
export function completesInNewShell(shell: Shell, env: NodeJS.ProcessEnv, timeoutMs = 10_000): Promise<ShellCheck> {
  const probe = PROBES[shell];
  return new Promise((resolve) => {
    const child = execFile(shell, probe.args, { env, timeout: timeoutMs, maxBuffer: 1 << 20 }, (error, stdout) => {
      const line = stdout.split('\n').find((l) => l.startsWith(MARK));
      if (line !== undefined) return resolve({ ran: true, works: probe.works(line.slice(MARK.length).trim()) });
      const code = error && 'code' in error ? error.code : undefined;
      resolve({ ran: false, reason: code === 'ENOENT' ? `${shell} is not installed` : `${shell} gave no answer${error?.killed ? ` within ${timeoutMs / 1000} s` : ''}` });
    });
    child.stdin?.end();
  });
}
