// tmux for the tests that look at a real terminal. Each test process has a tmux server of
// its own (`-L`): on the shared default server, one file's `kill-session` of the last
// session stops the server while another file is starting one ("server exited
// unexpectedly"), and a person's own tmux is never touched.
import { execFileSync } from 'node:child_process';

const socket = `svc-test-${process.pid}`;

/** Runs `tmux ARGS` on this process's own server and returns what it printed. */
export function tmux(args: readonly string[]): string {
  return execFileSync('tmux', ['-L', socket, ...args]).toString();
}

/** `K='v' …` for `env` in a tmux command line: the variables svc reads (SVC_*, PATH, HOME, and `extra`), quoted for sh. */
export function shellAssignments(env: Readonly<Record<string, string | undefined>>, extra: readonly string[] = []): string {
  return Object.entries(env)
    .filter((e): e is [string, string] => e[1] !== undefined && (e[0].startsWith('SVC_') || ['PATH', 'HOME', ...extra].includes(e[0])))
    .map(([k, v]) => `${k}='${v.replaceAll("'", "'\\''")}'`)
    .join(' ');
}
