// The IO object over this process's own streams (src/io/streams.ts). Whether standard input
// is a terminal is asked when a command needs to know (a prompt, a note before reading it):
// node:tty, which answers it, costs about 1 ms to load, and a command that makes one request
// never asks (test/e2e/startup-guard.test.ts).
import { fstatSync } from 'node:fs';
import { colorEnabled, isCI, type IOStreams } from './streams.js';
import { reportedColumns } from './terminal-columns.js';

export interface SystemStreamOptions {
  env: Readonly<Record<string, string | undefined>>;
  noColorFlag: boolean;
  noInputFlag: boolean;
  json: boolean;
}

/** Only a character device can be a terminal; only for one is node:tty loaded to ask. */
function stdinIsTerminal(): boolean {
  try {
    if (!fstatSync(0).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return process.getBuiltinModule('node:tty').isatty(0);
}

export function systemStreams(opts: SystemStreamOptions): IOStreams {
  let stdinIsTTY: boolean | undefined;
  const stdoutIsTTY = Boolean(process.stdout.isTTY);
  const stderrIsTTY = Boolean(process.stderr.isTTY);
  return {
    // Node makes process.stdin on first use, a stream over the file or pipe: only commands
    // that read it pay for that; whether it is a terminal is asked of the descriptor.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    get stdinIsTTY() {
      return (stdinIsTTY ??= stdinIsTerminal());
    },
    stdoutIsTTY,
    stderrIsTTY,
    color: colorEnabled({ env: opts.env, noColorFlag: opts.noColorFlag, isTTY: stderrIsTTY }),
    stdoutColor: colorEnabled({ env: opts.env, noColorFlag: opts.noColorFlag, isTTY: stdoutIsTTY }),
    noInput: opts.noInputFlag || isCI(opts.env),
    json: opts.json,
    columns: process.stdout.columns || Number(opts.env.COLUMNS) || 100,
    redraw: stderrIsTTY && reportedColumns(process.stderr) !== undefined && !isCI(opts.env) && !opts.json,
  };
}
