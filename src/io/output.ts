// The one exporter (gh's json_flags): every command that prints data goes through here,
// so --json, TTY tables and piped plain rows behave the same everywhere.
import { once } from 'node:events';
import { printable } from './printable.js';
import type { IOStreams } from './streams.js';

// C1 controls (U+0080–U+009F: U+009B is a terminal's CSI) and the bidirectional formatting
// characters (U+202E turns text around, "Trojan Source") that JSON.stringify leaves raw. In
// JSON text they can stand only inside strings, where \uXXXX is the same value.
const INVISIBLE = /[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON.stringify, with what could reorder or control a terminal escaped: every JSON that
 * svc prints (--json, NDJSON lines, JSON errors) comes from here.
 */
export function jsonText(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent);
  return text === undefined ? 'null' : text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** --json: the value as JSON on stdout, nothing else there. */
export function writeJson(io: IOStreams, value: unknown): void {
  io.stdout.write(`${jsonText(value, 2)}\n`);
}

// Below V8's large-object size, so each written piece dies young instead of piling up in the
// old generation until a full collection.
const PIECE_CHARS = 64 * 1024;

/**
 * --json for a list that may be long (a queue of thousands): the same text as writeJson, written
 * piece by piece, so that neither the text nor its bytes are ever held whole in memory.
 */
export async function writeJsonArray(io: IOStreams, items: readonly unknown[]): Promise<void> {
  if (items.length === 0) return writeJson(io, items);
  await writeJsonArrayText(io, (function* () {
    for (const item of items) yield jsonArrayElement(item);
  })());
}

/** One element of a --json array as writeJson indents it, for writeJsonArrayText. */
export function jsonArrayElement(item: unknown): string {
  // JSON has no raw line breaks inside strings, so indenting every line break nests an item.
  return `  ${jsonText(item, 2).replace(/\n/g, '\n  ')}`;
}

/** jsonArrayElement of each item, joined by ",\n": what JSON.stringify(items, null, 2) has between its brackets. */
export function jsonArrayElements(items: readonly unknown[]): string {
  return items.length === 0 ? '' : jsonText(items, 2).slice(2, -2);
}

/**
 * writeJsonArray for elements already turned into text (jsonArrayElement), several per
 * string joined by ",\n" if the producer likes (worker threads do); empty strings are skipped.
 */
export async function writeJsonArrayText(io: IOStreams, elements: Iterable<string>): Promise<void> {
  let piece = '';
  let any = false;
  for (const element of elements) {
    if (element === '') continue;
    piece += `${any ? ',\n' : '[\n'}${element}`;
    any = true;
    if (piece.length >= PIECE_CHARS) {
      if (!io.stdout.write(piece)) await once(io.stdout, 'drain');
      piece = '';
    }
  }
  piece += any ? '\n]\n' : '[]\n';
  if (!io.stdout.write(piece)) await once(io.stdout, 'drain');
}

export interface Column<T> {
  header: string;
  value: (row: T) => string;
}

/**
 * A list: JSON array with --json; a table on a TTY; otherwise tab-separated rows without a
 * header, so `cut` and `awk` work on it.
 */
export async function writeList<T>(io: IOStreams, rows: readonly T[], columns: readonly Column<T>[], json: unknown = rows): Promise<void> {
  if (io.json) return writeJson(io, json);
  if (rows.length === 0) {
    if (io.stdoutIsTTY) io.stderr.write('nothing to show\n');
    return;
  }
  const cells = rows.map((row) => columns.map((c) => oneLine(c.value(row))));
  if (!io.stdoutIsTTY) {
    for (const line of cells) io.stdout.write(`${line.join('\t')}\n`);
    return;
  }
  const { default: Table } = await import('cli-table3');
  const { theme } = await import('./theme.js');
  const t = theme(io, 'stdout');
  const table = new Table({
    head: columns.map((c) => t.bold(c.header)),
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  table.push(...cells);
  io.stdout.write(`${table.toString()}\n`);
}

/** A single resource: JSON with --json, otherwise "key  value" lines. */
export function writeRecord(io: IOStreams, fields: readonly [string, string][], json: unknown): void {
  if (io.json) return writeJson(io, json);
  // One line per field: a line break in a value (a customer's note) must not read as another field.
  const lines = fields.map(([k, v]) => [oneLine(k), oneLine(v)] as const);
  const width = Math.max(0, ...lines.map(([k]) => k.length));
  for (const [k, v] of lines) io.stdout.write(`${k.padEnd(width)}  ${v}\n`);
}

/** A table cell or record value: on one line, with no control characters (see printable). */
export function oneLine(s: string): string {
  return printable(s.replace(/[\t\r\n]+/g, ' '));
}
