// The queue screen on fake terminal streams (stdin with raw mode, stdout with a size that
// changes): keys move the cursor, mark, filter and show; decision keys call the injected
// decisions (the single commands' code) with the selected or marked requests, or say on the
// status line why they do not; a resize draws every line within the new width; q gives the
// terminal back (raw mode off, the normal screen).
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Column } from '../../src/io/output.js';
import type { IOStreams } from '../../src/io/streams.js';
import { displayWidth } from '../../src/io/width.js';
import { UnavailableError } from '../../src/errors.js';
import { runQueueScreen, type Decisions, type QueueRow } from '../../src/queue-screen/screen.js';

type Row = QueueRow & { note: string };

function fakeTerminal(columns: number, rows: number) {
  let written = '';
  const stdout = Object.assign(
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        written += String(chunk);
        done();
      },
    }),
    { columns, rows, isTTY: true },
  );
  const stdin = Object.assign(new PassThrough(), {
    isTTY: true,
    isRaw: false,
    setRawMode(raw: boolean) {
      stdin.isRaw = raw;
      return stdin;
    },
  });
  const io: IOStreams = { stdin, stdout, stderr: new PassThrough(), stdinIsTTY: true, stdoutIsTTY: true, stderrIsTTY: true, color: false, noInput: false, json: false, columns, redraw: true };
  /** The last frame drawn, as lines of text. */
  const screen = () => (written.split('\x1b[H').at(-1) ?? '').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').split('\r\n');
  return { io, stdin, stdout, screen, written: () => written };
}

async function until(what: () => boolean, label: string, screen: () => string[]): Promise<void> {
  for (const deadline = Date.now() + 3000; !what(); ) {
    if (Date.now() > deadline) throw new Error(`${label} never showed:\n${screen().join('\n')}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function queue(rows: Row[], opts: { canDecide?: boolean; failures?: number; intervalMs?: number; footer?: () => string; warning?: () => string | undefined; decisions?: Partial<Decisions> } = {}) {
  let failures = opts.failures ?? 0;
  const calls: [string, string[]][] = [];
  const move = (ids: string[], status: string) => {
    calls.push([status, ids]);
    for (const r of rows) if (ids.includes(r.requestId)) r.status = status;
    return ids.map((id) => `${id} ${status}`).join(' · ');
  };
  const decisions: Decisions = {
    show: async (id, columns) => `request  ${id}\nwidth    ${columns}\n${Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')}\n`,
    accept: async (ids) => move(ids, 'ACCEPTED'),
    acceptPart: async (id) => move([id], 'PARTIALLY_ACCEPTED'),
    reject: async (ids) => move(ids, 'REJECTED'),
    issue: async (id) => move([id], 'COMPLETED'),
    complete: async (id) => move([id], 'COMPLETED'),
    ...opts.decisions,
  };
  const columns: Column<Row>[] = [
    { header: 'REQUEST ID', value: (r) => r.requestId, id: true },
    { header: 'STATUS', value: (r) => r.status },
    { header: 'NOTE', value: (r) => r.note, flex: true },
  ];
  const term = fakeTerminal(120, 12);
  const stop = new AbortController();
  const done = runQueueScreen<Row>({
    io: term.io,
    fetch: async () => {
      if (failures-- > 0) throw new UnavailableError('the service is restarting');
      return { rows: rows.map((r) => ({ ...r })), footer: opts.footer ?? (() => `${rows.length} requests`), changed: () => false, warning: opts.warning?.() };
    },
    columns: () => columns,
    intervalMs: opts.intervalMs ?? 60_000,
    clockTime: () => '12:00:00 UTC',
    signal: stop.signal,
    decisions,
    canDecide: opts.canDecide ?? true,
  });
  const cursorRow = () => term.screen().find((l) => l.startsWith('>'));
  const status = () => term.screen().at(-1) ?? '';
  return { term, calls, done, cursorRow, status, keys: (text: string) => term.stdin.write(text) };
}

const rows = (): Row[] => [
  { requestId: 'aaaaaaaa-1', status: 'PENDING', note: 'a long note about a broken lid that goes on and on and on for many columns' },
  { requestId: 'bbbbbbbb-2', status: 'PENDING', note: 'milk' },
  { requestId: 'cccccccc-3', status: 'ACCEPTED', note: 'bread' },
];

describe('the queue screen', () => {
  it('moves the cursor, accepts the selected request through the decisions, and gives the terminal back on q', async () => {
    const q = queue(rows());
    await until(() => q.cursorRow()?.includes('aaaaaaaa') === true, 'the cursor on the first row', q.term.screen);
    expect(q.term.stdin.isRaw).toBe(true);
    expect(q.status()).toBe('a accept · p accept part · r reject · space mark · / filter · Enter show · ? keys · q leave');
    q.keys('j');
    await until(() => q.cursorRow()?.includes('bbbbbbbb') === true, 'j', q.term.screen);
    q.keys('a');
    await until(() => q.status() === 'bbbbbbbb-2 ACCEPTED', 'the result on the status line', q.term.screen);
    await until(() => q.cursorRow()?.includes('ACCEPTED') === true, 'the row refreshed', q.term.screen);
    expect(q.calls).toEqual([['ACCEPTED', ['bbbbbbbb-2']]]);
    q.keys('q');
    await q.done;
    expect(q.term.stdin.isRaw).toBe(false);
    expect(q.term.written().endsWith('\x1b[?25h\x1b[?1049l')).toBe(true);
  });

  it('makes the count line at each drawing, as the rows\' ages are: one drawn after a key is not the refresh\'s', async () => {
    let drawn = 0;
    const q = queue(rows(), { footer: () => `3 requests · drawing ${++drawn}` });
    await until(() => q.cursorRow() !== undefined, 'the list', q.term.screen);
    const first = drawn;
    q.keys('j');
    await until(() => q.cursorRow()?.includes('bbbbbbbb') === true, 'j', q.term.screen);
    await until(() => q.term.screen().some((l) => l.includes(`drawing ${drawn}`)) && drawn > first, 'the count line drawn again', q.term.screen);
    q.keys('q');
    await q.done;
  });

  it('refuses a move the status does not allow, and p, i, c on several marked requests, saying why; r takes the marked ones', async () => {
    const q = queue(rows());
    await until(() => q.cursorRow() !== undefined, 'the list', q.term.screen);
    q.keys('i');
    await until(() => q.status().startsWith('cannot issue aaaaaaaa: it is PENDING; issue moves ACCEPTED or PARTIALLY_ACCEPTED'), 'i refused', q.term.screen);
    // Space marks the row under the cursor and stays on it: mark, down, mark.
    q.keys(' ');
    q.keys('j');
    q.keys(' ');
    await until(() => q.term.screen().filter((l) => l.startsWith(' *') || l.startsWith('>*')).length === 2, 'two marked', q.term.screen);
    q.keys('p');
    await until(() => q.status().startsWith('accept part acts on one request'), 'p on two refused', q.term.screen);
    q.keys('r');
    await until(() => q.status() === 'aaaaaaaa-1 REJECTED · bbbbbbbb-2 REJECTED', 'both rejected', q.term.screen);
    expect(q.calls).toEqual([['REJECTED', ['aaaaaaaa-1', 'bbbbbbbb-2']]]);
    q.keys('\x1b[F');
    await until(() => q.cursorRow()?.includes('cccccccc') === true, 'End', q.term.screen);
    q.keys('a');
    await until(() => q.status() === 'cannot accept cccccccc: it is ACCEPTED; accept moves PENDING', 'a on ACCEPTED refused', q.term.screen);
    q.keys('q');
    await q.done;
    expect(q.calls).toHaveLength(1);
  });

  it('filters with / (Esc clears), shows with Enter (scrolled, q back), fits every line to a new width, and with prompts off decides nothing', async () => {
    const q = queue(rows(), { canDecide: false });
    await until(() => q.cursorRow() !== undefined, 'the list', q.term.screen);
    q.keys('/BREAD');
    await until(() => q.term.screen().filter((l) => l.includes('-')).length === 1 && q.cursorRow()?.includes('cccccccc') === true, 'the filter', q.term.screen);
    q.keys('\x1b');
    await until(() => q.term.screen().some((l) => l.includes('aaaaaaaa')), 'the filter cleared', q.term.screen);
    q.keys('\r');
    await until(() => q.term.screen()[0] === 'request  cccccccc-3', 'the request shown', q.term.screen);
    expect(q.status()).toMatch(/lines 1–11 of 32 · ↑↓ PgUp PgDn scroll · q or Esc: back to the list$/);
    q.keys('\x1b[6~');
    await until(() => q.term.screen()[0] === 'line 9', 'a page down', q.term.screen);
    q.keys('q');
    await until(() => q.cursorRow() !== undefined, 'the list again', q.term.screen);
    Object.assign(q.term.stdout, { columns: 40 });
    q.term.stdout.emit('resize');
    await until(() => q.term.screen().every((l) => displayWidth(l) <= 40) && q.term.screen().some((l) => l.endsWith('…')), 'the list at 40 columns', q.term.screen);
    q.keys('a');
    // Said whole, wrapped on the status area rather than cut at the width.
    await until(() => q.term.screen().join(' ').replace(/ +/g, ' ').includes('decisions ask questions, and prompts are off (--no-input): use accept, reject and issue'), 'no decision', q.term.screen);
    expect(q.term.screen().every((l) => displayWidth(l) <= 40)).toBe(true);
    q.keys('q');
    await q.done;
    expect(q.calls).toEqual([]);
  });

  it('on a narrow terminal names the columns it left out, on a line of its own when the count line is full, the screen still its height', async () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ requestId: `${String(i).padStart(8, '0')}-x`, status: 'PENDING', note: 'a note long enough to need room' }));
    const q = queue(many);
    await until(() => q.cursorRow() !== undefined, 'the list', q.term.screen);
    Object.assign(q.term.stdout, { columns: 26 });
    q.term.stdout.emit('resize');
    await until(() => q.term.screen().some((l) => l === 'not shown: NOTE'), 'the note of the left-out column', q.term.screen);
    const screen = q.term.screen();
    expect(screen).toHaveLength(12);
    for (const line of screen) expect(displayWidth(line), screen.join('\n')).toBeLessThanOrEqual(26);
    // The header, the rows, the note, the count line and the keys line, each wrapped between its
    // parts (no figure or key cut): the rows take what is left of the height.
    const note = screen.indexOf('not shown: NOTE');
    expect(screen[note + 1]).toBe('20 requests · row 1');
    expect(screen.slice(note + 1).some((l) => l.includes('…'))).toBe(false);
    expect(screen.filter((l) => / PENDING$/.test(l))).toHaveLength(note - 1);
    q.keys('\x1b[F');
    await until(() => q.cursorRow()?.startsWith('>  00000019') === true, 'End: the last row, visible', q.term.screen);
    expect(q.term.screen()).toHaveLength(12);
    q.keys('q');
    await q.done;
  });

  it('outlives a service that is unavailable for a while: a warning on the status line, gone once a refresh succeeds', async () => {
    const q = queue(rows(), { failures: 1, intervalMs: 50 });
    // The warning lasts while the service is away: the keys stay under it.
    await until(() => q.term.screen().some((l) => l.startsWith('warning: the service is restarting; trying again in 0.05 s')) && q.status().includes('? keys'), 'the warning, the keys under it', q.term.screen);
    await until(() => q.cursorRow()?.includes('aaaaaaaa') === true && q.status().startsWith('a accept') && !q.term.screen().some((l) => l.startsWith('warning: ')), 'the list, the warning gone', q.term.screen);
    q.keys('q');
    await q.done;
  });

  it("a refresh's warning shows under a move's result, lasts through keys while its cause does, and is gone once it is over", async () => {
    let away: string | undefined;
    const q = queue(rows(), { intervalMs: 50, warning: () => away });
    await until(() => q.cursorRow()?.includes('aaaaaaaa') === true, 'the list', q.term.screen);
    q.keys('a');
    await until(() => q.term.screen().includes('aaaaaaaa-1 ACCEPTED'), 'the result on the status line', q.term.screen);
    away = '1 request listed is not kept in the team ledger: the database is unreachable';
    const warned = () => q.term.screen().includes(`warning: ${away}`);
    await until(() => warned() && q.term.screen().includes('aaaaaaaa-1 ACCEPTED') && q.status().includes('? keys'), 'the warning under the result, the keys under it', q.term.screen);
    // A key clears the result, not the warning: its cause is still there.
    q.keys('j');
    await until(() => q.cursorRow()?.includes('bbbbbbbb') === true && !q.term.screen().includes('aaaaaaaa-1 ACCEPTED'), 'j, the result gone', q.term.screen);
    expect(warned(), q.term.screen().join('\n')).toBe(true);
    away = undefined;
    await until(() => !q.term.screen().some((l) => l.startsWith('warning: ')) && q.status().startsWith('a accept'), 'the warning gone', q.term.screen);
    q.keys('q');
    await q.done;
  });

  it("a move that failed because the database was away: its error is gone with the warning once the database is back", async () => {
    let away: string | undefined = 'the database is unreachable';
    const q = queue(rows(), { intervalMs: 50, warning: () => away, decisions: { accept: async () => Promise.reject(new UnavailableError('the database postgres://svc:***@db/svc is unreachable (ECONNREFUSED)')) } });
    await until(() => q.cursorRow()?.includes('aaaaaaaa') === true && q.term.screen().includes('warning: the database is unreachable'), 'the list and the warning', q.term.screen);
    q.keys('a');
    const failed = () => q.term.screen().some((l) => l.startsWith('error: the database postgres://svc:***@db/svc is unreachable'));
    await until(failed, 'the error of the move', q.term.screen);
    // Refreshes while it is still away keep both.
    await new Promise((r) => setTimeout(r, 200));
    expect(failed(), q.term.screen().join('\n')).toBe(true);
    away = undefined;
    await until(() => !failed() && !q.term.screen().some((l) => l.startsWith('warning: ')) && q.status().startsWith('a accept'), 'the error and the warning gone', q.term.screen);
    q.keys('q');
    await q.done;
  });
});

describe('? (the keys)', () => {
  it('lists e, the key a cut message offers ("… e: the whole message"), beside the others', async () => {
    const { KEY_HELP } = await import('../../src/queue-screen/keys.js');
    const keys = KEY_HELP.map(([k]) => k);
    expect(keys).toContain('e');
    expect(KEY_HELP.find(([k]) => k === 'e')?.[1]).toContain('the whole message');
    // Whole words only: the help is checked for cut text ("…").
    expect(KEY_HELP.every(([, what]) => !what.includes('…'))).toBe(true);
  });
});
