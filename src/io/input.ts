// JSON input files of commands (`--file F`, `--customer F`, `-` for stdin). Errors name the
// file and, for bad JSON, the line and column; they never quote the input, which may hold
// a customer's personal data (V8's own JSON messages do quote it).
import { isUtf8 } from 'node:buffer';
import { readBounded, REQUEST_BYTES, type ReadLimit } from './bounded-read.js';
import { jsonInputProblem } from '../contract/json-limits.js';
import { UsageError, ValidationError } from '../errors.js';
import { note, type IOStreams } from './streams.js';

/** What reading an input needs of the factory: its streams (stdin for `-`, stderr for the hint). */
interface Reader {
  readonly io: IOStreams;
}

/** How messages name an input path: `-` is standard input. */
export function inputName(path: string): string {
  return path === '-' ? 'standard input' : path;
}

/** A document sent as one request: the service refuses bodies over 1 MiB (413), and nothing raises that. */
export const REQUEST_LIMIT: ReadLimit = { bytes: REQUEST_BYTES, why: 'the service refuses request bodies over 1 MiB' };

/** Reads and parses a JSON file, or standard input for `-`, at most `limit`; the value is for the caller's schema. */
export async function readJsonInput(path: string, f: Reader, limit: ReadLimit = REQUEST_LIMIT): Promise<unknown> {
  const name = inputName(path);
  if (path === '-' && f.io.stdinIsTTY) note(f.io, 'reading JSON from standard input (end it with Ctrl-D)');
  const text = utf8Text(await readInput(path, f, limit), name);
  if (text.trim() === '') throw new UsageError(`${name} is empty`, { hint: 'give a JSON document' });
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    const syntax = jsonSyntaxError(text);
    const where = syntax ? `: ${syntax.problem} at line ${lineColumn(text, syntax.offset)}` : '';
    throw new UsageError(`${name} is not valid JSON${where}`, { hint: 'fix the JSON and try again' });
  }
  const problem = jsonInputProblem(value);
  if (problem) {
    throw new ValidationError(name, [{ path: problem.path || '(root)', message: problem.message }], { hint: 'fix the input and try again; nothing was sent' });
  }
  return value;
}

/** The exact bytes of a file, or of standard input for `-` (a signed body, say), at most `limit`. */
export async function readBytesInput(path: string, f: Reader, limit: ReadLimit): Promise<Buffer> {
  if (path === '-' && f.io.stdinIsTTY) note(f.io, 'reading standard input (end it with Ctrl-D)');
  return readInput(path, f, limit);
}

async function readInput(path: string, f: Reader, limit: ReadLimit): Promise<Buffer> {
  try {
    return await readBounded(path, f.io.stdin, inputName(path), limit);
  } catch (error) {
    throw inputReadError(path, error);
  }
}

/** A file that cannot be opened or read, named with the reason; a usage error (a limit) passes as it is. */
export function inputReadError(path: string, error: unknown): unknown {
  if (error instanceof UsageError) return error;
  const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown error';
  const why = READ_ERRORS[code] ?? code;
  return new UsageError(`cannot read ${path}: ${why}`, { hint: 'check the path, or pass - to read standard input', cause: error });
}

const READ_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
};

const SAVE_AS_UTF8 = 'save it as UTF-8 (from Windows-1252 or Latin-1: iconv -f windows-1252 -t utf-8; in PowerShell: Set-Content -Encoding utf8)';

/**
 * An input's text, which must be UTF-8: decoded leniently, a Windows-1252 or Latin-1 export
 * ("Bäckerei" with ä as the one byte 0xE4) would reach the customer's receipt as
 * "B\uFFFDckerei" without a word. The first line that is not UTF-8 is named (its bytes are
 * not quoted: personal data); UTF-16 (Windows PowerShell's `>`) is named as such. A UTF-8
 * byte order mark, as editors on Windows save one, is dropped.
 */
export function utf8Text(bytes: Buffer, name: string): string {
  refuseUtf16(bytes, name);
  const bad = linesNotUtf8(bytes);
  if (bad.length > 0) throw new UsageError(`${name} is not UTF-8 text (line ${bad[0]})`, { hint: SAVE_AS_UTF8 });
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** UTF-16 text (it starts with a UTF-16 byte order mark) cannot be read line by line either: refused whole. */
export function refuseUtf16(bytes: Buffer, name: string): void {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new UsageError(`${name} is UTF-16 text, not UTF-8`, { hint: SAVE_AS_UTF8 });
  }
}

/** The numbers (from 1) of the lines whose bytes are not UTF-8. */
export function linesNotUtf8(bytes: Buffer): number[] {
  if (isUtf8(bytes)) return [];
  const strict = new TextDecoder('utf-8', { fatal: true });
  const bad: number[] = [];
  let start = 0;
  for (let line = 1; start <= bytes.length; line++) {
    const end = bytes.indexOf(0x0a, start);
    const stop = end === -1 ? bytes.length : end;
    try {
      strict.decode(bytes.subarray(start, stop));
    } catch {
      bad.push(line);
    }
    start = stop + 1;
  }
  return bad;
}

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `${line}, column ${offset - before.lastIndexOf('\n')}`;
}

class SyntaxStop {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {}
}

/**
 * Where and why `text` is not JSON (RFC 8259), or undefined when it is. Only called after
 * JSON.parse failed, so it favours a clear message over speed.
 */
export function jsonSyntaxError(text: string): { offset: number; problem: string } | undefined {
  let i = 0;
  const stop = (problem: string) => new SyntaxStop(i, problem);
  const unexpected = () => stop(i >= text.length ? 'unexpected end of input' : `unexpected '${text[i]}'`);
  const skipSpace = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const expect = (char: string) => {
    skipSpace();
    if (text[i] !== char) throw unexpected();
    i++;
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

  function string(): void {
    i++;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) throw stop('line break or control character inside a string (write it as \\n, \\t, ...)');
      if (c === 0x5c) {
        const escape = text[i + 1];
        if (escape === 'u' ? !/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)) : !'"\\/bfnrt'.includes(escape ?? 'x'))
          throw stop('invalid escape sequence in a string');
        i += escape === 'u' ? 6 : 2;
      } else i++;
    }
    throw stop('unterminated string');
  }

  function members(close: string, member: () => void): void {
    i++;
    skipSpace();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      member();
      skipSpace();
      if (text[i] !== ',') return expect(close);
      i++;
    }
  }

  function value(): void {
    skipSpace();
    const c = text[i];
    if (c === '{')
      return members('}', () => {
        skipSpace();
        if (text[i] !== '"') throw text[i] === '}' ? stop("trailing comma before '}'") : unexpected();
        string();
        expect(':');
        value();
      });
    if (c === '[')
      return members(']', () => {
        skipSpace();
        if (text[i] === ']') throw stop("trailing comma before ']'");
        value();
      });
    if (c === '"') return string();
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) {
      i = NUMBER.lastIndex;
      return;
    }
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    throw unexpected();
  }

  try {
    value();
    skipSpace();
    if (i < text.length) throw unexpected();
    return undefined;
  } catch (error) {
    // Anything else (a stack overflow on absurd nesting) leaves the message without a position.
    return error instanceof SyntaxStop ? { offset: error.offset, problem: error.problem } : undefined;
  }
}
