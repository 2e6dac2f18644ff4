// How wide a terminal stream is for redrawing a line on it. A terminal may report 0 columns
// (`script -qc … /dev/null` with no terminal around it, `ssh -tt`, fresh containers): that is
// not a width, so it counts as unknown, and an unknown width is taken as 80.
import { fstatSync } from 'node:fs';
import type { Writable } from 'node:stream';

const DEFAULT_COLUMNS = 80;

/** The columns the stream reports, or undefined when it reports none (0, or not a terminal). */
export function reportedColumns(stream: Writable): number | undefined {
  const columns = (stream as { columns?: unknown }).columns;
  return typeof columns === 'number' && Number.isInteger(columns) && columns > 0 ? columns : undefined;
}

export function terminalColumns(stream: Writable): number {
  return reportedColumns(stream) ?? DEFAULT_COLUMNS;
}

/**
 * The columns of standard output when it is a terminal, else undefined. A pipe or a file is
 * told apart by fstat before process.stdout is asked: making process.stdout for a pipe loads
 * node:net and node:stream, about 2 ms of `svc --help | less` (test/e2e/startup-guard.test.ts).
 */
export function stdoutColumns(): number | undefined {
  try {
    if (!fstatSync(1).isCharacterDevice()) return undefined;
  } catch {
    return undefined;
  }
  return process.stdout.isTTY ? process.stdout.columns : undefined;
}
