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
