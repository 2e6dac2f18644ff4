// The one exporter (gh's json_flags): every command that prints data goes through here,
// so --json, TTY tables and piped plain rows behave the same everywhere.
import { once } from 'node:events';
import { printable } from './printable.js';
import { wrapCell, wrapParts, wrapText } from './wrap.js';
import type { ChalkInstance } from 'chalk';
import type { IOStreams } from './streams.js';

// DEL and the C1 controls (U+0080–U+009F: U+009B is a terminal's CSI), the bidirectional
// formatting characters (U+202E turns text around, "Trojan Source"), the line and paragraph
// separators (line breaks to some readers, and invalid in JavaScript strings before ES2019)
// and the zero-width no-break space (a BOM): all left raw by JSON.stringify. In JSON text
// they can stand only inside strings, where \uXXXX is the same value.
const INVISIBLE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

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
 * string joined by ",\n" if the producer likes; empty ones are skipped. An element may be
 * its UTF-8 bytes already (a queue of thousands holds its output outside the JavaScript heap
 * until it is written).
 */
export async function writeJsonArrayText(io: IOStreams, elements: Iterable<string | Uint8Array>): Promise<void> {
  let piece = '';
  let any = false;
  const write = async (chunk: string | Uint8Array) => {
    if (!io.stdout.write(chunk)) await once(io.stdout, 'drain');
  };
  for (const element of elements) {
    if (element.length === 0) continue;
    piece += any ? ',\n' : '[\n';
    any = true;
    if (typeof element === 'string') piece += element;
    else {
      await write(piece);
      piece = '';
      await write(element);
    }
    if (piece.length >= PIECE_CHARS) {
      await write(piece);
      piece = '';
    }
  }
  piece += any ? '\n]\n' : '[]\n';
  await write(piece);
}

export interface Column<T> {
  header: string;
  value: (row: T) => string;
  /** Long text (a note, a name): the first to give up width when the terminal is narrow. */
  flex?: boolean;
  align?: 'left' | 'right';
  /** Colour of a cell by its meaning (a status), on a terminal only. */
  tone?: (value: string) => Tone | undefined;
  /**
   * An ID: on a narrow terminal it is cut, without "…", to its usable prefix (a prefix is
   * still an ID): 8 characters, or the number given (`whsub_` and 6 more: 12); never to
   * anything between that and the whole ID.
   */
  id?: boolean | number;
  /** The header of an ID cut to its prefix when the header is wider ("SERVICE RECEIPT ID": "ID"). */
  short?: string;
  /** A value that is no use cut (a date): narrowed only when every other column has given way. */
  whole?: boolean;
  /**
   * Long text (`flex`) that tells its values apart at their end, a company's name: cut in the
   * middle ("Platf…00005 GmbH"), and not below `min` columns before the other columns give way.
   */
  cut?: { middle: true; min: number };
  /**
   * A value that is no use cut but reads on more lines (a list of scopes, a URL): on a
   * terminal too narrow for it, it gives width like long text but is wrapped within its column
   * onto more lines of its row (at spaces, else where the column ends), never cut.
   */
  wrap?: boolean;
  /**
   * On a terminal too narrow for every column whole (IDs at their prefix, long text at 8):
   * the order in which this column is left out, higher first, ties the rightmost first
   * (default 0). The first column is never left out; a column is shown only when every one
   * left out later is.
   */
  drop?: number;
}

export type Tone = 'green' | 'yellow' | 'red' | 'cyan' | 'dim';

export interface ListOptions {
  /** The JSON value of --json (default: the rows). */
  json?: unknown;
  /** A line under the table on a terminal: "143 requests, 37 pending, oldest 3d". */
  footer?: string | undefined;
}

const MIN_FLEX_WIDTH = 8;
/** Long text narrower than this reads as nothing ("https:/…"): a column is left out first. */
const READABLE_FLEX_WIDTH = 10;
const MIN_ID_WIDTH = 8;
const GAP = '  ';

/** The characters of an ID that still name it (Column.id). */
function idPrefix(id: boolean | number): number {
  return typeof id === 'number' ? id : MIN_ID_WIDTH;
}

/**
 * A list: JSON array with --json; on a terminal, borderless columns fitted to its width
 * (long text cut with …, measured as the terminal draws it: wide CJK, emoji), statuses in
 * colour, and an optional footer; otherwise tab-separated rows without a header, every value
 * whole, with tabs, line breaks and backslashes escaped visibly (\t, \n, \\), so `cut`
 * and `awk` work on it and nothing is lost.
 */
export async function writeList<T>(
  io: IOStreams,
  rows: readonly T[],
  columns: readonly Column<T>[],
  json: unknown = rows,
  options: Omit<ListOptions, 'json'> & {
    /** Rows drawn highlighted (new or changed since the last refresh of a watch). */
    highlight?: (row: T) => boolean;
    /** At most this many rows on a terminal, then a line saying how many more. */
    maxRows?: number;
    /** How to see the rows left out by maxRows, e.g. "narrow it with --limit". */
    moreHow?: string;
  } = {},
): Promise<void> {
  if (io.json) return writeJson(io, json);
  if (rows.length === 0) {
    if (io.stdoutIsTTY) io.stderr.write('nothing to show\n');
    return;
  }
  if (!io.stdoutIsTTY) {
    for (const row of rows) io.stdout.write(`${columns.map((c) => tsvField(c.value(row))).join('\t')}\n`);
    return;
  }
  const fitted = async (maxRows: number | undefined) => {
    const drawn = maxRows !== undefined && rows.length > maxRows ? rows.slice(0, Math.max(0, maxRows - 1)) : rows;
    const table = await tableLines(io, drawn, columns, io.columns, options.highlight);
    return { drawn, table, footer: footerLines(options.footer, table.dropped, io.columns) };
  };
  let { drawn, table, footer } = await fitted(options.maxRows);
  // A note of left-out columns on a line of its own takes a row's place on a screen of maxRows.
  if (options.maxRows !== undefined && footer.length > 1) ({ drawn, table, footer } = await fitted(options.maxRows - (footer.length - 1)));
  io.stdout.write(`${table.header}\n`);
  for (const line of table.rows) io.stdout.write(`${line}\n`);
  const t = table.theme;
  const { fitWidth } = await import('./width.js');
  if (drawn.length < rows.length) io.stdout.write(`${t.dim(fitWidth(`… ${rows.length - drawn.length} more${options.moreHow === undefined ? '' : ` (${options.moreHow})`}`, io.columns))}\n`);
  for (const line of footer) io.stdout.write(`${t.dim(fitWidth(line, io.columns))}\n`);
}

/**
 * "not shown: REFUND, NOTE (--json has them)": the columns a narrow
 * terminal left out (tableLines), and how to see them (`how`: the queue screen has no --json).
 */
export function droppedNote(dropped: readonly string[], columns: number, how = '--json has them'): string | undefined {
  if (dropped.length === 0) return undefined;
  const note = `not shown: ${dropped.join(', ')}`;
  // Said whole or not at all: a terminal too narrow for it gets the columns' names alone.
  const told = `${note} (${how})`;
  return told.length <= columns ? told : note;
}

/**
 * The footer (a count line) and the dropped columns' note: on one line when it fits, else the
 * count line wrapped between its " · " parts (wrapParts: no figure cut) and the note under it.
 */
export function footerLines(footer: string | undefined, dropped: readonly string[], columns: number): string[] {
  const note = droppedNote(dropped, columns);
  if (!footer) return note === undefined ? [] : [note];
  if (note === undefined) return wrapParts(footer, columns);
  const joined = `${footer} · ${note}`;
  return joined.length <= columns ? [joined] : [...wrapParts(footer, columns), note];
}

/**
 * A terminal table's lines, fitted to `room` columns: the header in bold, each row with its
 * cells cut to fit and toned by meaning, `highlight`ed rows in inverse. writeList's table,
 * and the queue screen's, which draws them under a cursor. Columns that do not fit whole
 * are left out by priority (keptColumns), their headers in `dropped`.
 */
export async function tableLines<T>(
  io: Pick<IOStreams, 'color' | 'stdoutColor'>,
  rows: readonly T[],
  allColumns: readonly Column<T>[],
  room: number,
  highlight?: (row: T) => boolean,
  /** false: rows shown without the header line (a picker's choices), so no column is as wide as its header. */
  withHeader = true,
): Promise<{ header: string; rows: string[]; theme: ChalkInstance; dropped: string[] }> {
  const [{ theme }, { displayWidth, fitMiddle, fitWidth, padWidth }] = await Promise.all([import('./theme.js'), import('./width.js')]);
  const t = theme(io, 'stdout');
  const allCells = rows.map((row) => allColumns.map((c) => oneLine(c.value(row))));
  const allWidths = allColumns.map((c, i) => Math.max(withHeader ? displayWidth(c.header) : 0, ...allCells.map((r) => displayWidth(r[i] ?? ''))));
  // The narrowest header each column may take (Column.short), for the floors of the fit.
  const least = (c: Column<T>) => displayWidth(c.short ?? c.header);
  // An ID is cut to the shortest prefix that still tells its values apart (at least its usable
  // prefix): 50 stores all starting "50000000" keep as many characters as tell them apart.
  const allPrefixes = allColumns.map((c, i) => (c.id === undefined || c.id === false ? 0 : uniquePrefixLength(allCells.map((r) => r[i] ?? ''), idPrefix(c.id))));
  const kept = keptColumns(allWidths, allColumns, room, allColumns.map(least), allPrefixes);
  const every = kept.length === allColumns.length;
  const columns = every ? allColumns : kept.map((i) => allColumns[i] as Column<T>);
  const cells = every ? allCells : allCells.map((r) => kept.map((i) => r[i] ?? ''));
  const widths = every ? allWidths : kept.map((i) => allWidths[i] ?? 0);
  const prefixes = every ? allPrefixes : kept.map((i) => allPrefixes[i] ?? 0);
  const dropped = every ? [] : allColumns.filter((_, i) => !kept.includes(i)).map((c) => c.header);
  // A column left out for want of room: every ID shown is at its prefix, as it was when that
  // was decided (keptColumns), so a narrower terminal never shows more of an ID than a wider one.
  fitColumns(widths, columns, room - GAP.length * (columns.length - 1), columns.map(least), prefixes, !every);
  // Room left over gives a short-headed column its whole header back.
  let spare = room - GAP.length * (columns.length - 1) - widths.reduce((a, b) => a + b, 0);
  columns.forEach((c, i) => {
    const need = displayWidth(c.header) - (widths[i] ?? 0);
    if (c.short !== undefined && need > 0 && need <= spare) [widths[i], spare] = [(widths[i] ?? 0) + need, spare - need];
  });
  const last = columns.length - 1;
  // A row is one line, or more where a wrapped column (Column.wrap) needs them.
  const line = (values: readonly string[], style: (value: string, i: number) => string) => {
    const parts = values.map((v, i) => {
      const width = widths[i] ?? 0;
      // A cut ID is its usable prefix, even under a header wider than that (REQUEST ID).
      const id = columns[i]?.id;
      if (id && displayWidth(v) > width) return [v.slice(0, Math.min(width, Math.max(idPrefix(id), prefixes[i] ?? 0)))];
      if (columns[i]?.wrap) return wrapCell(v, width);
      return [columns[i]?.cut ? fitMiddle(v, width) : fitWidth(v, width)];
    });
    const height = Math.max(1, ...parts.map((p) => p.length));
    return Array.from({ length: height }, (_, k) => {
      const text = parts
        .map((p, i) => {
          const fitted = p[k] ?? '';
          // The last column is not padded: no trailing blanks to wrap a line.
          const padded = i === last && columns[i]?.align !== 'right' ? fitted : padWidth(fitted, widths[i] ?? 0, columns[i]?.align);
          return fitted === '' && k > 0 ? padded : style(padded, i);
        })
        .join(GAP);
      return k > 0 ? text.trimEnd() : text;
    }).join('\n');
  };
  return {
    header: line(columns.map((c, i) => (c.short !== undefined && displayWidth(c.header) > (widths[i] ?? 0) ? c.short : c.header)), (v) => t.bold(v)),
    rows: cells.map((row, r) => {
      const marked = highlight?.(rows[r] as T) ?? false;
      return line(row, (v, i) => {
        const tone = columns[i]?.tone?.(row[i] ?? '');
        const toned = tone ? t[tone](v) : v;
        return marked ? t.inverse(toned) : toned;
      });
    }),
    theme: t,
    dropped,
  };
}

/**
 * The indices of the columns a table of `room` columns shows: all of them when they fit with
 * only IDs at their usable prefix and long text down to READABLE_FLEX_WIDTH (kubectl's narrow
 * output rather than every value cut to "…"); otherwise columns are left out, the highest
 * `drop` first, ties the rightmost first, never the first column; a column is shown only when
 * every column wanted more is (a strict order: the long text keeps what a small column would
 * take). When even the first column alone does not fit whole, what is left is cut (fitColumns).
 */
export function keptColumns(widths: readonly number[], columns: readonly { flex?: boolean; wrap?: boolean; id?: boolean | number; drop?: number; cut?: { min: number } }[], room: number, headers: readonly number[], prefixes: readonly number[] = []): number[] {
  const floorOf = (i: number) => {
    const c = columns[i];
    const natural = widths[i] ?? 0;
    if (c?.flex || c?.wrap) return Math.min(natural, Math.max(READABLE_FLEX_WIDTH, c.cut?.min ?? 0));
    if (c?.id !== undefined && c.id !== false) return Math.min(natural, Math.max(idPrefix(c.id), prefixes[i] ?? 0, headers[i] ?? 0));
    return natural;
  };
  const kept = columns.map((_, i) => i);
  const fits = (set: readonly number[]) => set.reduce((sum, i) => sum + floorOf(i), 0) + GAP.length * (set.length - 1) <= room;
  while (!fits(kept) && kept.length > 1) {
    let victim = 1;
    for (let k = 2; k < kept.length; k++) {
      if ((columns[kept[k] as number]?.drop ?? 0) >= (columns[kept[victim] as number]?.drop ?? 0)) victim = k;
    }
    kept.splice(victim, 1);
  }
  return kept;
}

/**
 * Narrows columns until they fit `room`, by priority: IDs first, each at once to the shortest
 * prefix that tells its values apart (at least its usable prefix: a 10-character cut of a UUID
 * is no better than 8 and costs 2), then long text (down to MIN_FLEX_WIDTH), then the widest
 * of the other columns, then long text further, and dates (whole) only when nothing else can
 * give. What cutting an ID freed beyond the need goes back to the long text. A wider room
 * never gives a column less. `idsAtPrefix` (a column was left out): every ID at its prefix
 * whatever the room, the room it frees to the long text.
 */
export function fitColumns(widths: number[], columns: readonly { flex?: boolean; wrap?: boolean; id?: boolean | number; whole?: boolean; cut?: { min: number } }[], room: number, headers: readonly number[], prefixes: readonly number[] = [], idsAtPrefix = false): void {
  const natural = [...widths];
  const total = () => widths.reduce((a, b) => a + b, 0);
  const prefixOf = (i: number) => Math.min(natural[i] ?? 0, Math.max(idPrefix(columns[i]?.id ?? false), prefixes[i] ?? 0, headers[i] ?? 0));
  const shrink = (inStage: (i: number) => boolean, floorOf: (i: number) => number) => {
    while (total() > room) {
      const pool = widths.map((w, i) => ({ w, i })).filter(({ w, i }) => inStage(i) && w > floorOf(i));
      if (pool.length === 0) return;
      const widest = pool.reduce((a, b) => (b.w > a.w ? b : a));
      widths[widest.i] = Math.max(floorOf(widest.i), widest.w - Math.max(1, total() - room));
    }
  };
  // A wrapped column gives width as long text does: what it loses goes on its next lines.
  const isFlex = (i: number) => Boolean(columns[i]?.flex || columns[i]?.wrap);
  const isId = (i: number) => columns[i]?.id !== undefined && columns[i]?.id !== false;
  if (idsAtPrefix) widths.forEach((_, i) => isId(i) && (widths[i] = prefixOf(i)));
  // IDs give way first, each to the prefix that still tells its values apart, before a name,
  // a note or a reason is cut: a wider terminal never shows less of the text.
  while (total() > room) {
    const ids = widths.map((w, i) => ({ w, i })).filter(({ w, i }) => isId(i) && w > prefixOf(i));
    if (ids.length === 0) break;
    const widest = ids.reduce((a, b) => (b.w > a.w ? b : a));
    widths[widest.i] = prefixOf(widest.i);
  }
  shrink(isFlex, (i) => Math.max(MIN_FLEX_WIDTH, columns[i]?.cut?.min ?? 0));
  const isWhole = (i: number) => Boolean(columns[i]?.whole);
  const floor = (i: number) => Math.max(4, Math.min(headers[i] ?? 0, 12));
  shrink((i) => !isFlex(i) && !isId(i) && !isWhole(i), floor);
  shrink(isFlex, () => 1);
  shrink(isWhole, floor);
  // Room an ID's cut freed beyond what was needed: to the long text, up to its whole width.
  for (let i = 0; i < widths.length && total() < room; i++) {
    if (isFlex(i)) widths[i] = Math.min(natural[i] ?? 0, (widths[i] ?? 0) + room - total());
  }
}

/** The shortest prefix length, at least `min`, at which the distinct values differ (their whole length when one is a prefix of another). */
export function uniquePrefixLength(values: readonly string[], min: number): number {
  const distinct = [...new Set(values)];
  const longest = Math.max(0, ...distinct.map((v) => v.length));
  for (let n = min; n < longest; n++) {
    if (new Set(distinct.map((v) => v.slice(0, n))).size === distinct.length) return n;
  }
  return longest;
}

/** A TSV field: the whole value, \ \t \n \r escaped, other control characters as printable shows them. */
export function tsvField(value: string): string {
  return printable(value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r'));
}

/** A single resource: JSON with --json, otherwise "key  value" lines. */
export function writeRecord(io: IOStreams, fields: readonly [string, string][], json: unknown): void {
  if (io.json) return writeJson(io, json);
  // One line per field: a line break in a value (a customer's note) must not read as another field.
  const lines = fields.map(([k, v]) => [oneLine(k), oneLine(v)] as const);
  const width = Math.max(0, ...lines.map(([k]) => k.length));
  // On a terminal a long value wraps at word boundaries, under itself; piped, each field stays one line.
  const fit = (line: string) => (io.stdoutIsTTY ? wrapText(line, io.columns, { columns: true }) : line);
  for (const [k, v] of lines) io.stdout.write(`${fit(`${k.padEnd(width)}  ${v}`)}\n`);
}

/** A table cell or record value: on one line, with no control characters (see printable). */
export function oneLine(s: string): string {
  return printable(s.replace(/[\t\r\n]+/g, ' '));
}
