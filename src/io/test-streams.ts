// In-memory IOStreams for unit tests: capture what a command wrote and feed its stdin.
import { PassThrough, Writable } from 'node:stream';
import type { IOStreams } from './streams.js';

export interface TestStreams {
  io: IOStreams;
  stdout(): string;
  stderr(): string;
  /** Write to the command's stdin (then end it with `endInput`). */
  input: PassThrough;
}

export function testStreams(overrides: Partial<Omit<IOStreams, 'stdin' | 'stdout' | 'stderr'>> = {}): TestStreams {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const sink = (chunks: Buffer[]) =>
    new Writable({
      write(chunk: Buffer | string, _enc, cb) {
        chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
        cb();
      },
    });
  const input = new PassThrough();
  const io: IOStreams = {
    stdin: input,
    stdout: sink(out),
    stderr: sink(err),
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    color: false,
    noInput: true,
    json: false,
    columns: 120,
    redraw: false,
    ...overrides,
  };
  return {
    io,
    input,
    stdout: () => Buffer.concat(out).toString('utf8'),
    stderr: () => Buffer.concat(err).toString('utf8'),
  };
}
