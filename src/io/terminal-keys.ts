// A full-screen view's hold on the terminal (k9s, lazygit, `top`): keys one at a time with
// nothing echoed (raw mode), and the terminal's size as it changes (SIGWINCH: the stream's
// 'resize'), which updates io.columns for the next draw. Given back as it was on dispose.
import type { ReadStream, WriteStream } from 'node:tty';
import type { IOStreams } from './streams.js';

/** A key as a view reads it: the character typed, or a name for the keys that have one. */
export type TerminalKey = string | 'escape' | 'ctrl-c' | 'enter' | 'up' | 'down' | 'left' | 'right' | 'pageup' | 'pagedown' | 'home' | 'end' | 'backspace';

/** The escape sequences of the keys a list moves with, as xterm, tmux and the Linux console send them. */
const NAMED: Readonly<Record<string, TerminalKey>> = {
  '\x1b[A': 'up',
  '\x1bOA': 'up',
  '\x1b[B': 'down',
  '\x1bOB': 'down',
  '\x1b[C': 'right',
  '\x1bOC': 'right',
  '\x1b[D': 'left',
  '\x1bOD': 'left',
  '\x1b[5~': 'pageup',
  '\x1b[6~': 'pagedown',
  '\x1b[H': 'home',
  '\x1bOH': 'home',
  '\x1b[1~': 'home',
  '\x1b[7~': 'home',
  '\x1b[F': 'end',
  '\x1bOF': 'end',
  '\x1b[4~': 'end',
  '\x1b[8~': 'end',
};

export interface TerminalHandlers {
  key?(key: TerminalKey): void;
  /** After io.columns has the new width; `rows` the new height. */
  resize?(columns: number, rows: number): void;
}

/** Nothing happens without a terminal on stdin (keys) or stdout (size): a pipe keeps its defaults. */
export function holdTerminal(io: IOStreams, handlers: TerminalHandlers): { dispose(): void } {
  const disposers: (() => void)[] = [];
  const stdout = io.stdout as Partial<WriteStream>;
  if (io.stdoutIsTTY && typeof stdout.on === 'function' && handlers.resize) {
    const onResize = () => {
      if (typeof stdout.columns === 'number' && stdout.columns > 0) io.columns = stdout.columns;
      handlers.resize?.(io.columns, stdout.rows ?? 24);
    };
    stdout.on('resize', onResize);
    disposers.push(() => stdout.off?.('resize', onResize));
  }
  const stdin = io.stdin as Partial<ReadStream> & NodeJS.ReadableStream;
  if (io.stdinIsTTY && handlers.key && typeof stdin.setRawMode === 'function') {
    const wasRaw = stdin.isRaw ?? false;
    stdin.setRawMode(true);
    stdin.resume();
    const onData = (data: Buffer | string) => {
      for (const key of keysOf(String(data))) handlers.key?.(key);
    };
    stdin.on('data', onData);
    disposers.push(() => {
      stdin.off('data', onData);
      stdin.setRawMode?.(wasRaw);
      stdin.pause();
    });
  }
  return {
    dispose() {
      for (const d of disposers.reverse()) d();
    },
  };
}

/** The keys in a chunk of raw input: an escape sequence (an arrow) is one key, a lone ESC is Esc. */
export function keysOf(text: string): TerminalKey[] {
  const keys: TerminalKey[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\x1b') {
      const sequence = /^\x1b(?:\[[0-9;]*[A-Za-z~]|O[A-Za-z])/.exec(text.slice(i))?.[0];
      if (sequence === undefined) {
        keys.push('escape');
        continue;
      }
      keys.push(NAMED[sequence] ?? sequence);
      i += sequence.length - 1;
    } else if (c === '\x03') keys.push('ctrl-c');
    else if (c === '\r' || c === '\n') keys.push('enter');
    else if (c === '\x7f' || c === '\b') keys.push('backspace');
    else keys.push(c);
  }
  return keys;
}
