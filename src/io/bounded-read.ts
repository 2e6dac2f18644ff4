// The one way svc reads a file or standard input: incrementally, and never past a limit
// taken from the interface (a request body the service takes, a batch's lines, a key).
// Nothing reads "until the end" of something that may not end: /dev/zero, `yes |`, a FIFO
// whose writer never closes. Past the limit the read stops at once (no further read is
// issued, the file is closed, standard input is let go) and a usage error (exit 2) names
// the input, the limit and what raises it, if anything does. A character device or a FIFO
// is read the same way as a file; one that never closes and never reaches the limit is
// waited on, holding at most the limit. The limits are listed in docs/ci-and-scripts.md.
// node:fs/promises through fs.promises, loaded on first use: importing it loads the
// readline and watcher modules with it, about 2.5 ms of every command that reads no file
// (test/e2e/startup-guard.test.ts).
import { closeSync, openSync, promises as fsPromises, readSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { UsageError } from '../errors.js';

/** 1 MiB: the service answers 413 to a request body over it, so a larger input cannot be sent. */
export const REQUEST_BYTES = 1024 * 1024; // = MAX_BODY_BYTES of contract/error.ts, not imported: that file loads zod
/** A customer-details file, a private key or a secret: a few KiB in practice. */
export const SMALL_BYTES = 64 * 1024;

/** How much of an input svc takes, and how a user gets more (left out: nothing raises it). */
export interface ReadLimit {
  readonly bytes: number;
  /** What raises the limit (`--max-lines N`, `SVC_…=N`), or why nothing does. */
  readonly raise?: string;
  /** Why the limit is what it is, for the error: "the service refuses request bodies over 1 MiB". */
  readonly why?: string;
}

const CHUNK = 64 * 1024;

/**
 * The input's pieces as they arrive, a file (any kind) or standard input for `-` where the
 * caller gives it (without, `-` is a file's name); the caller stops when it has enough.
 */
export async function* inputChunks(path: string, stdin: Readable | undefined): AsyncGenerator<Buffer> {
  if (path === '-' && stdin !== undefined) {
    try {
      for await (const chunk of stdin) yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    } finally {
      // A producer that goes on (`yes |`) must not keep svc waiting once it stopped reading.
      if (!stdin.readableEnded) stdin.destroy();
    }
    return;
  }
  // An error opening or reading (ENOENT, EISDIR, …) is thrown as it is: each caller names the file its own way.
  const handle = await fsPromises.open(path, 'r');
  try {
    for (;;) {
      // One read at a time, issued only when the caller asks for more: a FIFO that never
      // closes leaves no read pending once the caller stopped.
      const buffer = Buffer.allocUnsafe(CHUNK);
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The whole input, at most `limit.bytes` of it; one byte more is refused. */
export async function readBounded(path: string, stdin: Readable | undefined, name: string, limit: ReadLimit): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of inputChunks(path, stdin)) {
    total += chunk.length;
    if (total > limit.bytes) throw tooLarge(name, limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** A file read where nothing may wait (a TLS option, a password file): the same bound, read synchronously. */
export function readBoundedSync(path: string, name: string, limit: ReadLimit): Buffer {
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(CHUNK);
      const bytesRead = readSync(fd, buffer, 0, CHUNK, null);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      total += bytesRead;
      if (total > limit.bytes) throw tooLarge(name, limit);
      chunks.push(buffer.subarray(0, bytesRead));
    }
  } finally {
    closeSync(fd);
  }
}

/** The usage error of an input past its limit. */
export function tooLarge(name: string, limit: ReadLimit, what = 'is larger than'): UsageError {
  const why = limit.why ? ` (${limit.why})` : '';
  return new UsageError(`${name} ${what} ${sizeText(limit.bytes)}${why}`, {
    hint: limit.raise ?? 'nothing raises this limit: make the input smaller',
  });
}

/** 1048576 → "1 MiB", 65536 → "64 KiB", others in bytes. */
export function sizeText(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** Limits of a file of lines (a batch): each line, and how many there are. */
export interface LinesLimit {
  readonly line: ReadLimit;
  readonly lines: number;
  /** What raises the count (`--max-lines N`). */
  readonly raiseLines: string;
}

/**
 * The whole input of a file of lines, checked as it arrives: a line longer than
 * `limit.line.bytes` or more than `limit.lines` lines (blank ones too) stop the read at once.
 */
export async function readBoundedLines(path: string, stdin: Readable, name: string, limit: LinesLimit): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  // Lines ended so far, and the length of the one under way (with a \r that may end it).
  let ended = 0;
  let length = 0;
  let lastByte = -1;
  const tooLong = () => tooLarge(`line ${ended + 1} of ${name}`, limit.line, 'is longer than');
  for await (const chunk of inputChunks(path, stdin)) {
    let start = 0;
    while (start < chunk.length) {
      if (ended === limit.lines) throw tooManyLines(name, limit);
      const end = chunk.indexOf(0x0a, start);
      const stop = end === -1 ? chunk.length : end;
      length += stop - start;
      if (stop > start) lastByte = chunk[stop - 1] as number;
      // One byte more may be the \r of a \r\n, known only at the \n.
      if (length > limit.line.bytes + 1) throw tooLong();
      if (end === -1) break;
      if (length - (lastByte === 0x0d && length > 0 ? 1 : 0) > limit.line.bytes) throw tooLong();
      ended++;
      length = 0;
      lastByte = -1;
      start = end + 1;
    }
    total += chunk.length;
    chunks.push(chunk);
  }
  if (length > limit.line.bytes) throw tooLong();
  return Buffer.concat(chunks, total);
}

function tooManyLines(name: string, limit: LinesLimit): UsageError {
  return new UsageError(`${name} has more than ${limit.lines.toLocaleString('en-US')} lines`, { hint: `${limit.raiseLines} raises the limit, or split the file` });
}
