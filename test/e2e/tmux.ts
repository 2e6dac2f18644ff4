// A real terminal for the end-to-end tests: the built svc (or a shell) run inside a detached
// tmux session, keys sent as a person types them, the screen (with its scrollback) read back
// as text. Each test process has a tmux server of its own (`-L`): on the shared default
// server, one file's `kill-session` of the last session stops the server while another file
// is starting one ("server exited unexpectedly"), and a person's own tmux is never touched.
import { execFileSync } from 'node:child_process';
import { svcBin } from './helpers.js';

const socket = `svc-test-${process.pid}`;

let serverUp = false;

/**
 * Starts this process's server once, kept alive by a session of its own: a test that kills its
 * session and starts the next one at once (help at 60, then 80 columns) otherwise meets the
 * server on its way out when that was its last session ("server exited unexpectedly", seen in
 * CI). The keeper stops the server once this test process is gone, however it ended.
 */
function ensureServer(): void {
  if (serverUp) return;
  try {
    execFileSync('tmux', ['-L', socket, 'has-session', '-t', 'svc-keeper'], { stdio: 'ignore' });
  } catch {
    const keeper = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; tmux -L ${socket} kill-server`;
    execFileSync('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'svc-keeper', keeper]);
  }
  serverUp = true;
}

/** Runs `tmux ARGS` on this process's own server and returns what it printed. */
export function tmux(args: readonly string[]): string {
  ensureServer();
  return execFileSync('tmux', ['-L', socket, ...args]).toString();
}

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** `K='v' …` for `env` in a tmux command line: the variables svc reads (SVC_*, PATH, HOME, and `extra`), quoted for sh. */
export function shellAssignments(env: Readonly<Record<string, string | undefined>>, extra: readonly string[] = []): string {
  return Object.entries(env)
    .filter((e): e is [string, string] => e[1] !== undefined && (e[0].startsWith('SVC_') || ['PATH', 'HOME', ...extra].includes(e[0])))
    .map(([k, v]) => `${k}=${quote(v)}`)
    .join(' ');
}

export interface Terminal {
  /** The screen and everything scrolled off it, as plain text. */
  text(): string;
  /** Waits until the text matches; fails naming what never showed, with the screen. */
  waitFor(pattern: string | RegExp, label?: string, timeoutMs?: number): Promise<void>;
  /** tmux key names: `a`, `Enter`, `Down`, `Escape`, `C-c`. */
  keys(...keys: string[]): void;
  /** Text typed as it is (no key names). */
  type(text: string): void;
  kill(): void;
}

/**
 * Runs `svc ARGS` in a WIDTH×HEIGHT terminal with exactly `env`, then prints
 * `SVC-EXIT=<code>` and stays open, so that the test reads the exit code off the screen.
 */
export function svcInTerminal(name: string, args: readonly string[], env: Record<string, string>, size: [number, number] = [160, 50]): Terminal {
  const session = `${name}-${process.pid}`;
  const command = `env -i ${shellAssignments(env, ['NO_COLOR', 'LANG', 'LC_ALL', 'TZ'])} TERM=xterm-256color node ${quote(svcBin)} ${args.map(quote).join(' ')}; echo SVC-EXIT=$?; sleep 60`;
  tmux(['new-session', '-d', '-s', session, '-x', String(size[0]), '-y', String(size[1]), command]);
  const text = () => tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', session]);
  return {
    text,
    async waitFor(pattern, label = String(pattern), timeoutMs = 20_000) {
      const seen = () => (typeof pattern === 'string' ? text().includes(pattern) : pattern.test(text()));
      for (const deadline = Date.now() + timeoutMs; !seen(); ) {
        if (Date.now() > deadline) throw new Error(`${label} never showed; the terminal:\n${text()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    keys: (...keys) => void tmux(['send-keys', '-t', session, ...keys]),
    type: (typed) => void tmux(['send-keys', '-t', session, '-l', typed]),
    kill: () => {
      try {
        tmux(['kill-session', '-t', session]);
      } catch {
        // Already gone.
      }
    },
  };
}
