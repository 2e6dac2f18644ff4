// The IO object every command writes through (gh's iostreams). TTY flags are plain
// fields so tests can set them; nothing else in the code looks at process.stdout.
import type { Readable, Writable } from 'node:stream';
import { reportedColumns } from './terminal-columns.js';
import { wrapText, type WrapOptions } from './wrap.js';

export interface IOStreams {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Colour on stderr (NO_COLOR, FORCE_COLOR, --no-color, TTY). */
  color: boolean;
  /** Colour on stdout, decided for stdout itself (`svc demo | cat` gets none); default: `color`. */
  stdoutColor?: boolean;
  /** --no-input, CI=true: never prompt. */
  noInput: boolean;
  /** --json: machine output on stdout, nothing else there. */
  json: boolean;
  /** Terminal width for tables and truncation. */
  columns: number;
  /** Where what `--jq` must not filter goes (`svc api -i`'s status line and headers); default: stdout. */
  unfilteredStdout?: Writable;
  /**
   * Spinners and progress bars may redraw stderr: it is a terminal that reports its width
   * (a terminal of 0 columns gets none), CI is not set (a CI log keeps every frame) and not --json.
   */
  redraw: boolean;
}

/** A person can answer a prompt: stdin and stdout are terminals and nobody said not to ask. */
export function canPrompt(io: IOStreams): boolean {
  return io.stdinIsTTY && io.stdoutIsTTY && !io.noInput;
}

/**
 * Human progress and notes: stderr, so stdout stays clean for data. On a terminal a line
 * wider than it wraps at words (the terminal would break it mid-word), continuations
 * indented (`layout.columns`: lines of a term and its text continue under the text, as
 * writeRecord's); anywhere else each line stays whole.
 */
export function note(io: IOStreams, text: string, layout: Pick<WrapOptions, 'columns'> = {}): void {
  const width = io.stderrIsTTY ? reportedColumns(io.stderr) : undefined;
  const shown = width === undefined ? text : wrapText(text.replace(/\n$/, ''), width, { hang: '  ', ...layout });
  io.stderr.write(shown.endsWith('\n') ? shown : `${shown}\n`);
}

/** Plain data line on stdout. */
export function println(io: IOStreams, text = ''): void {
  io.stdout.write(`${text}\n`);
}

export interface ColorInputs {
  env: Readonly<Record<string, string | undefined>>;
  noColorFlag: boolean;
  isTTY: boolean;
}

/** The usual rules: --no-color and NO_COLOR win, FORCE_COLOR=0 disables and any other value forces, else a TTY and TERM != dumb. */
export function colorEnabled({ env, noColorFlag, isTTY }: ColorInputs): boolean {
  if (noColorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  return isTTY && env.TERM !== 'dumb';
}

export function isCI(env: Readonly<Record<string, string | undefined>>): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}
