// The queue screen (k9s, lazygit): `credit-note poll --watch` on a terminal. One component
// that keeps the live list (fetched again every interval), a cursor, a filter and marks,
// draws them fitted to the terminal (again on every resize), and hands each decision key to
// the functions the single commands run (`Decisions`, given by the command: accept, reject,
// issue, complete, show), so a decision here is the decision there: the same checks,
// prompts, ledger intents and Idempotency-Keys. While a decision asks its questions the
// screen lets go of the terminal (raw mode off, the cursor shown) and takes it back after.
import type { WriteStream } from 'node:tty';
import { CancelError, ExitCode, SvcError, exitCodeOf } from '../errors.js';
import { droppedNote, oneLine, tableLines, type Column } from '../io/output.js';
import type { IOStreams } from '../io/streams.js';
import { holdTerminal, type TerminalKey } from '../io/terminal-keys.js';
import { theme } from '../io/theme.js';
import { displayWidth, fitWidth, padWidth } from '../io/width.js';
import { wrapParts, wrapText } from '../io/wrap.js';
import { DECISIONS, KEY_HELP, decisionsFor, isDecisionKey, refusal, type DecisionKey } from './keys.js';
import { ListState, windowTop, type ListRow } from './list-state.js';

export interface QueueRow {
  requestId: string;
  status: string;
  /** Over several companies (--all-grants): the Grant the request was found under. */
  grantId?: string;
}

/** The single commands' code, as the screen calls it; each answers the line for the status line. */
export interface Decisions {
  /** `credit-note show`'s text, at `columns`. */
  show(requestId: string, columns: number): Promise<string>;
  accept(requestIds: string[]): Promise<string>;
  acceptPart(requestId: string): Promise<string>;
  reject(requestIds: string[]): Promise<string>;
  issue(requestId: string): Promise<string>;
  complete(requestId: string): Promise<string>;
}

export interface QueueScreenParts<T extends QueueRow> {
  io: IOStreams;
  /**
   * One refresh: the rows to list, the count line under them, whether a row is new or changed
   * since the refresh before, and a warning for the status line while something is wrong.
   */
  fetch(): Promise<{ rows: T[]; footer: () => string; changed(row: T): boolean; warning?: string | undefined }>;
  columns(): Column<T>[];
  intervalMs: number;
  /** "12:03:04 CET": when the list was fetched. */
  clockTime(): string;
  /** Ends the screen (Ctrl-C outside raw mode, SIGTERM, a test). */
  signal: AbortSignal;
  decisions: Decisions;
  /** False when nobody may be asked (--no-input): the decision keys say so; Enter still shows. */
  canDecide: boolean;
  /** What else `/` finds a row by, beyond its cells (its customer, as `--customer` matches one). */
  matches?: (row: T) => ((needle: string) => boolean) | undefined;
}

const ENTER_ALT_SCREEN = '\x1b[?1049h\x1b[?25l';
const LEAVE_ALT_SCREEN = '\x1b[?25h\x1b[?1049l';
const HOME = '\x1b[H';
/** The whole line, before it is written: after a line as wide as the terminal, an erase to its end would take its last character. */
const CLEAR_LINE = '\x1b[2K';
const CLEAR_BELOW = '\x1b[J';
/** The cursor's and the mark's places before each row. */
const PREFIX = 3;

type View = { kind: 'list' } | { kind: 'help' } | { kind: 'detail'; requestId: string; lines: string[]; top: number; message?: string };

/** The status area takes at most this share of the screen; a longer message is one key (e) away, whole. */
const MESSAGE_SHARE = 3;

export async function runQueueScreen<T extends QueueRow>(parts: QueueScreenParts<T>): Promise<void> {
  const { io } = parts;
  const out = io.stdout as Partial<WriteStream> & NodeJS.WritableStream;
  const t = theme(io, 'stdout');
  const state = new ListState<T & ListRow>();
  let view: View = { kind: 'list' };
  // Made at each drawing, as the rows' ages are: "oldest 21s" beside a row of 21s, not the refresh's 15s.
  let footer: () => string = () => '';
  let updated = '';
  let changed: (row: T) => boolean = () => false;
  // The status area holds two things apart: `message`, what the last key or move answered
  // (gone with the next key), and `warning`, what each refresh finds wrong (a database or a
  // service away, companies not read), which lasts exactly as long as the refreshes find it,
  // whatever a move said meanwhile.
  let message = '';
  let warning = '';
  // A move's failure because something was away (exit 8): over once the refreshes find it back.
  let outageMessage: string | undefined;
  let top = 0;
  let busy = false;
  let fatal: unknown;
  let wake: (() => void) | undefined;
  const stop = new AbortController();
  const leave = () => stop.abort();
  parts.signal.addEventListener('abort', leave, { once: true });
  if (parts.signal.aborted) leave();

  const size = () => {
    if (typeof out.columns === 'number' && out.columns > 0) io.columns = out.columns;
    return { width: io.columns, height: Math.max(4, out.rows ?? 24) };
  };
  const labelOf = (rows: readonly T[]) => (rows.length === 1 ? rows[0]!.requestId.slice(0, 8) : `${rows.length} requests`);

  // One draw at a time: a resize while a refresh draws waits for it.
  let drawing = Promise.resolve();
  const draw = () => {
    drawing = drawing.then(async () => {
      if (busy || stop.signal.aborted) return;
      const frame = await frameOf();
      if (!busy && !stop.signal.aborted) out.write(`${HOME}${frame.map((l) => `${CLEAR_LINE}${l}`).join('\r\n')}${CLEAR_BELOW}`);
    });
    return drawing;
  };

  const frameOf = async (): Promise<string[]> => {
    const { width, height } = size();
    const fit = (line: string) => fitWidth(line, width);
    if (view.kind === 'help') {
      const keyWidth = Math.max(...KEY_HELP.map(([k]) => displayWidth(k)));
      // Wrapped at words, each continuation under its text: nothing of a key's meaning is cut.
      const help = KEY_HELP.flatMap(([k, what]) => wrapText(`  ${padWidth(k, keyWidth)}  ${what}`, width, { columns: true }).split('\n')).map(fit);
      const lines = [t.bold('keys'), '', ...help, '', t.dim(fit('any key: back to the list'))];
      return lines.slice(0, height);
    }
    if (view.kind === 'detail') {
      const body = height - 1;
      view.top = Math.max(0, Math.min(view.top, view.lines.length - body));
      const shown = view.lines.slice(view.top, view.top + body).map(fit);
      const where = view.lines.length > body ? ` · lines ${view.top + 1}–${view.top + shown.length} of ${view.lines.length} · ↑↓ PgUp PgDn scroll` : '';
      return [...shown, ...Array<string>(body - shown.length).fill(''), t.dim(fit(`${view.message === undefined ? view.requestId : 'the whole message'}${where} · q or Esc: back to the list`))];
    }
    const rows = state.visible();
    const selected = state.selected();
    // What only this screen knows first (marks, the filter), so a narrow terminal keeps it.
    const marks = state.marked.size > 0 ? `${state.marked.size} marked · ` : '';
    // Filtered, the count is of the rows shown ("1 of 9 requests (filter: bob)"), not the queue's counts of them all.
    const counts = state.filter ? `${rows.length} of ${state.total()} ${state.total() === 1 ? 'request' : 'requests'} (filter: ${oneLine(state.filter)})` : footer();
    const status = statusLines(selected, width);
    const shownOf = rows.length === 0 ? '' : ` · row ${state.cursor() + 1}`;
    const tail = `${shownOf} · updated ${updated} · every ${parts.intervalMs / 1000} s`;
    // The count line keeps every figure: wrapped between its parts when the width is short (wrapParts).
    const countLines = (count: string) => wrapParts(`${count}${tail}`, width);
    const fitted = async (body: number) => {
      const at = windowTop(top, state.cursor(), body, rows.length);
      const window = rows.slice(at, at + body);
      const table = await tableLines(io, window, parts.columns(), width - PREFIX, (row) => row.requestId === selected?.requestId);
      // The columns this width left out (writeList's note): after the count line, or on a line of its own above it.
      const note = droppedNote(table.dropped, width, 'widen to see them');
      const joined = note !== undefined && displayWidth(`${marks}${counts} · ${note}`) <= width;
      return { at, window, table, count: countLines(joined ? `${marks}${counts} · ${note}` : `${marks}${counts}`), noteLine: joined ? undefined : note };
    };
    const below = (count: readonly string[], noteLine: string | undefined) => count.length + status.length + (noteLine === undefined ? 0 : 1);
    let frame = await fitted(height - 1 - below(countLines(`${marks}${counts}`), undefined));
    const body = height - 1 - below(frame.count, frame.noteLine);
    if (frame.window.length > body) frame = await fitted(body);
    const { window, table, count, noteLine } = frame;
    top = frame.at;
    const lines = [`${' '.repeat(PREFIX)}${table.header}`];
    window.forEach((row, i) => {
      const cursor = row.requestId === selected?.requestId ? '>' : ' ';
      const mark = state.marked.has(row.requestId) ? '*' : changed(row) ? '+' : ' ';
      lines.push(`${cursor}${mark} ${table.rows[i]}`);
    });
    if (rows.length === 0) lines.push(state.filter ? `nothing matches /${state.filter}` : 'nothing to show');
    while (lines.length < height - below(count, noteLine)) lines.push('');
    if (noteLine !== undefined) lines.push(t.dim(fit(noteLine)));
    lines.push(...count.map((l) => t.dim(fit(l))));
    lines.push(...status.map(fit));
    return lines;
  };

  /** The message and the warning, as `e` shows them whole. */
  const statusText = (): string => [message, warning].filter((m) => m !== '').join('\n');

  /**
   * The status area: the hint line, or the message and the warning wrapped at words (an error
   * whole, with its hint), cut with e's note when they would take over the screen.
   */
  const statusLines = (selected: T | undefined, width: number): string[] => {
    // The keys line wrapped between its keys, as the count line: no key cut to "? ke…".
    if (state.typing) return wrapParts(`/${state.filter}_  Enter keeps it · Esc clears it`, width);
    const text = statusText();
    if (text === '') return wrapParts(keysLine(selected), width);
    // A warning lasts while its cause does, refresh after refresh: the keys stay under it, or
    // they would never be seen again.
    const keys = warning === '' ? [] : wrapParts(keysLine(selected), width);
    const wrapped = wrapText(text, width, { hang: '  ' }).split('\n');
    const room = Math.max(1, Math.floor(size().height / MESSAGE_SHARE));
    if (wrapped.length <= room) return [...wrapped, ...keys];
    return [...wrapped.slice(0, room - 1), t.dim('… e: the whole message'), ...keys];
  };

  const keysLine = (selected: T | undefined): string => {
    const offered = selected === undefined || !parts.canDecide ? [] : decisionsFor(selected.status).map((k) => `${k} ${DECISIONS[k].name}`);
    return [...offered, 'space mark', '/ filter', 'Enter show', '? keys', 'q leave'].join(' · ');
  };

  const refresh = async () => {
    try {
      const fetched = await parts.fetch();
      state.setRows(fetched.rows.map((row) => Object.assign(row, { id: row.requestId, text: searchText(parts.columns(), row), matches: parts.matches?.(row) })));
      footer = fetched.footer;
      changed = fetched.changed;
      updated = parts.clockTime();
      // Each refresh says what is wrong now: the warning of one before is over unless this one finds it too.
      const away = warning !== '';
      warning = fetched.warning === undefined ? '' : oneLine(`warning: ${fetched.warning}`);
      // Back: a move's failure for what was away is over with it, not left as if it still were.
      if (away && warning === '' && message === outageMessage) message = '';
    } catch (error) {
      // The service may be restarting: the screen outlives that, anything else ends it.
      if (exitCodeOf(error) !== ExitCode.unavailable) throw error;
      warning = oneLine(`warning: ${(error as Error).message}; trying again in ${parts.intervalMs / 1000} s`);
    }
    if (view.kind === 'list') await draw();
  };

  /** Lets go of the terminal while a decision asks its questions; the list is fetched again after. */
  const suspended = async (title: string, act: () => Promise<string>): Promise<boolean> => {
    busy = true;
    held.dispose();
    await drawing;
    out.write(`${HOME}\x1b[2J\x1b[?25h${title}\r\n\r\n`);
    let done = false;
    try {
      message = await act();
      done = true;
    } catch (error) {
      // As main.ts prints an error: control characters made visible; the hint on a line of its own.
      if (error instanceof CancelError) message = oneLine(error.message);
      else if (error instanceof SvcError) {
        message = errorMessage(error);
        if (error.exitCode === ExitCode.unavailable) outageMessage = message;
      } else throw error;
    } finally {
      out.write('\x1b[?25l\x1b[2J');
      held = hold();
      busy = false;
    }
    wake?.();
    return done;
  };

  const decide = async (key: DecisionKey) => {
    const decisions = parts.decisions;
    if (!parts.canDecide) {
      message = 'decisions ask questions, and prompts are off (--no-input): use accept, reject and issue';
      return;
    }
    const targets = state.targets();
    if (targets.length === 0) return;
    const { name, bulk } = DECISIONS[key];
    if (targets.length > 1 && !bulk) {
      message = `${name} acts on one request: only a and r take the ${targets.length} marked (Esc clears the marks)`;
      return;
    }
    if (new Set(targets.map((r) => r.grantId)).size > 1) {
      message = `the ${targets.length} marked requests are of several companies: ${name} each company's apart`;
      return;
    }
    for (const row of targets) {
      const refused = refusal(key, row.status, row.requestId.slice(0, 8));
      if (refused !== undefined) {
        message = refused;
        return;
      }
    }
    const ids = targets.map((r) => r.requestId);
    const done = await suspended(`${name} ${labelOf(targets)}`, () => {
      switch (key) {
        case 'a':
          return decisions.accept(ids);
        case 'p':
          return decisions.acceptPart(ids[0]!);
        case 'r':
          return decisions.reject(ids);
        case 'i':
          return decisions.issue(ids[0]!);
        case 'c':
          return decisions.complete(ids[0]!);
      }
    });
    // A declined question (or a move that failed) keeps the marks: the same keys try again.
    if (done) for (const id of ids) state.marked.delete(id);
  };

  const showSelected = async () => {
    const selected = state.selected();
    if (selected === undefined) return draw();
    await openDetail(selected.requestId, 0);
  };

  const openDetail = async (requestId: string, at: number) => {
    try {
      const text = await parts.decisions.show(requestId, size().width);
      view = { kind: 'detail', requestId, lines: text.replace(/\n+$/, '').split('\n'), top: at };
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      message = errorMessage(error);
    }
    await draw();
  };

  const onKey = async (key: TerminalKey) => {
    const { height } = size();
    if (key === 'ctrl-c') return leave();
    if (view.kind === 'help') {
      view = { kind: 'list' };
      return draw();
    }
    if (view.kind === 'detail') {
      const detail = view;
      const page = height - 2;
      if (key === 'q' || key === 'escape' || key === 'enter') view = { kind: 'list' };
      else if (key === 'down' || key === 'j') detail.top += 1;
      else if (key === 'up' || key === 'k') detail.top -= 1;
      else if (key === 'pagedown' || key === ' ') detail.top += page;
      else if (key === 'pageup' || key === 'b') detail.top -= page;
      else if (key === 'home' || key === 'g') detail.top = 0;
      else if (key === 'end' || key === 'G') detail.top = detail.lines.length;
      detail.top = Math.max(0, detail.top);
      return draw();
    }
    if (state.typing) {
      if (key === 'escape') {
        state.typing = false;
        state.setFilter('');
      } else if (key === 'enter') state.typing = false;
      else if (key === 'backspace') state.setFilter(state.filter.slice(0, -1));
      else if (key.length === 1 && key >= ' ') state.setFilter(state.filter + key);
      return draw();
    }
    // A key clears the message (the warning stays while its cause does); `e` shows both whole and keeps them.
    const said = message;
    const shown = statusText();
    message = '';
    const page = Math.max(1, height - 4);
    if (key === 'q' || key === 'Q') return leave();
    if (key === 'escape') {
      if (state.filter) state.setFilter('');
      else if (state.marked.size > 0) state.marked.clear();
      else return leave();
    } else if (key === 'down' || key === 'j') state.move(1);
    else if (key === 'up' || key === 'k') state.move(-1);
    else if (key === 'pagedown') state.move(page);
    else if (key === 'pageup') state.move(-page);
    else if (key === 'home' || key === 'g') state.moveTo(0);
    else if (key === 'end' || key === 'G') state.moveTo(Number.MAX_SAFE_INTEGER);
    else if (key === ' ') state.toggleMark();
    else if (key === '/') state.typing = true;
    else if (key === '?') view = { kind: 'help' };
    else if (key === 'e' && shown) {
      message = said;
      view = { kind: 'detail', requestId: '', message: shown, lines: wrapText(shown, size().width, { hang: '  ' }).split('\n'), top: 0 };
    }
    else if (key === 'enter') return showSelected();
    else if (isDecisionKey(key)) await decide(key);
    return draw();
  };

  // Keys one at a time, each handled before the next (a decision may ask questions first).
  let keys = Promise.resolve();
  const hold = () => {
    size();
    return holdTerminal(io, {
      key: (key) => {
        keys = keys.then(() => (busy || stop.signal.aborted ? undefined : onKey(key))).catch((error: unknown) => {
          fatal = error;
          leave();
        });
      },
      resize: () => {
        if (view.kind === 'detail' && view.message !== undefined) view.lines = wrapText(view.message, size().width, { hang: '  ' }).split('\n');
        if (view.kind === 'detail' && view.message === undefined) void openDetail(view.requestId, view.top).catch((error: unknown) => ((fatal = error), leave()));
        else void draw();
      },
    });
  };

  out.write(ENTER_ALT_SCREEN);
  let held = hold();
  try {
    while (!stop.signal.aborted) {
      await refresh();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, parts.intervalMs);
        function done() {
          clearTimeout(timer);
          stop.signal.removeEventListener('abort', done);
          wake = undefined;
          resolve();
        }
        wake = done;
        stop.signal.addEventListener('abort', done, { once: true });
      });
      // A decision under way is waited for: its questions are on the screen.
      await keys;
    }
  } finally {
    held.dispose();
    await keys;
    await drawing;
    out.write(LEAVE_ALT_SCREEN);
    parts.signal.removeEventListener('abort', leave);
  }
  if (fatal !== undefined) throw fatal;
}

/** An error as main.ts prints it: its message, then its hint, each made printable. */
function errorMessage(error: SvcError): string {
  return `error: ${oneLine(error.message)}${error.hint ? `\n${oneLine(error.hint)}` : ''}`;
}

/** A row's cells as shown, for `/`. */
function searchText<T>(columns: readonly Column<T>[], row: T): string {
  return columns.map((c) => c.value(row)).join(' ');
}
