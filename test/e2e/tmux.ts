// A real terminal for the end-to-end tests: the built svc run inside a detached tmux session,
// keys sent as a person types them, the screen (with its scrollback) read back as text.
import { execFileSync } from 'node:child_process';
import { svcBin } from './helpers.js';

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
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const exports = Object.entries(env)
    .filter(([k]) => k.startsWith('SVC_') || ['PATH', 'HOME', 'NO_COLOR', 'LANG', 'LC_ALL'].includes(k))
    .map(([k, v]) => `${k}=${quote(v)}`)
    .join(' ');
  const session = `${name}-${process.pid}`;
  const command = `env -i ${exports} TERM=xterm-256color node ${quote(svcBin)} ${args.map(quote).join(' ')}; echo SVC-EXIT=$?; sleep 60`;
  execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', String(size[0]), '-y', String(size[1]), command]);
  const text = () => execFileSync('tmux', ['capture-pane', '-p', '-J', '-S', '-', '-t', session]).toString();
  return {
    text,
    async waitFor(pattern, label = String(pattern), timeoutMs = 20_000) {
      const seen = () => (typeof pattern === 'string' ? text().includes(pattern) : pattern.test(text()));
      for (const deadline = Date.now() + timeoutMs; !seen(); ) {
        if (Date.now() > deadline) throw new Error(`${label} never showed; the terminal:\n${text()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    keys: (...keys) => void execFileSync('tmux', ['send-keys', '-t', session, ...keys]),
    type: (typed) => void execFileSync('tmux', ['send-keys', '-t', session, '-l', typed]),
    kill: () => {
      try {
        execFileSync('tmux', ['kill-session', '-t', session]);
      } catch {
        // Already gone.
      }
    },
  };
}
