// The IO object over this process's own streams (src/io/streams.ts). A module of its own
// because it needs node:tty, which the command tree (--help) does not.
import { isatty } from 'node:tty';
import { colorEnabled, isCI, type IOStreams } from './streams.js';
import { reportedColumns } from './terminal-columns.js';

export interface SystemStreamOptions {
  env: Readonly<Record<string, string | undefined>>;
  noColorFlag: boolean;
  noInputFlag: boolean;
  json: boolean;
}

export function systemStreams(opts: SystemStreamOptions): IOStreams {
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
    stdinIsTTY: isatty(0),
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
