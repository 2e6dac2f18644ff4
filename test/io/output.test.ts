import { describe, expect, it } from 'vitest';
import { writeList, writeRecord } from '../../src/io/output.js';
import { canPrompt, colorEnabled, isCI } from '../../src/io/streams.js';
import { testStreams } from '../../src/io/test-streams.js';

const rows = [
  { id: 'a1', name: 'First\tone' },
  { id: 'b2', name: 'Second' },
];
const columns = [
  { header: 'ID', value: (r: (typeof rows)[number]) => r.id },
  { header: 'NAME', value: (r: (typeof rows)[number]) => r.name },
];

describe('writeList', () => {
  it('prints borderless columns with headers on a TTY, and the footer', async () => {
    const t = testStreams({ stdoutIsTTY: true });
    await writeList(t.io, rows, columns, rows, { footer: '2 things' });
    expect(t.stdout()).toBe('ID  NAME\na1  First one\nb2  Second\n2 things\n');
    expect(t.stdout()).not.toContain('\x1b['); // colour off
  });

  it('fits the terminal: long text cut with …, IDs cut to a prefix without it, wide characters measured as drawn', async () => {
    const t = testStreams({ stdoutIsTTY: true });
    t.io.columns = 30;
    const wide = [{ id: '0b7e6c1a-1111-4aaa-8bbb-000000000001', note: '日本語のメモ 🍮 and a long English tail' }];
    await writeList(t.io, wide, [
      { header: 'ID', value: (r) => r.id, id: true },
      { header: 'NOTE', value: (r) => r.note, flex: true },
    ]);
    const { displayWidth } = await import('../../src/io/width.js');
    const lines = t.stdout().split('\n').filter(Boolean);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(30);
    // The note gives way first (to 8 columns), then the ID is cut to its usable prefix at once
    // (never to a 20-character cut), and the note gets back what that freed.
    expect(lines[1]).toBe('0b7e6c1a  日本語のメモ 🍮 and…');
  });

  it('keeps an ID at its usable prefix, never 3 or 10 characters, and gives text what is left', async () => {
    const t = testStreams({ stdoutIsTTY: true });
    t.io.columns = 40;
    const subs = [{ id: 'whsub_5fd8139a1e2b4c5d', items: '2 (2 lines)', url: 'https://example.com/webhooks/a-long-path' }];
    await writeList(t.io, subs, [
      { header: 'ID', value: (r) => r.id, id: 12 },
      { header: 'ITEMS', value: (r) => r.items },
      { header: 'URL', value: (r) => r.url, flex: true },
    ]);
    const lines = t.stdout().split('\n').filter(Boolean);
    expect(lines[1]).toBe('whsub_5fd813  2 (2 lines)  https://exam…');
    t.io.columns = 20;
    await writeList(t.io, subs, [
      { header: 'ID', value: (r) => r.id, id: true },
      { header: 'ITEMS', value: (r) => r.items },
      { header: 'URL', value: (r) => r.url, flex: true },
    ]);
    const narrow = t.stdout().split('\n').filter(Boolean);
    // At 20 columns neither the items nor the URL fit whole: the ID alone, at its prefix, and a note.
    expect(narrow.slice(3)).toEqual(['whsub_5f', 'not shown: ITEMS, U…']);
  });

  it('an ID under a header wider than its prefix (REQUEST ID) is still cut to 8, not to the 10 of the header', async () => {
    const t = testStreams({ stdoutIsTTY: true });
    t.io.columns = 40;
    const queue = [{ id: '986e72c4-cf47-4076-b16c-e32ed755b45a', refund: 'ORIGINAL_PAYMENT_METHOD' }];
    await writeList(t.io, queue, [
      { header: 'REQUEST ID', value: (r) => r.id, id: true },
      { header: 'REFUND', value: (r) => r.refund },
    ]);
    const lines = t.stdout().split('\n').filter(Boolean);
    expect(lines[0]).toBe('REQUEST ID  REFUND');
    expect(lines[1]).toBe('986e72c4    ORIGINAL_PAYMENT_METHOD');
  });

  it('a date (whole) is the last to give way: text, IDs and the other columns first', async () => {
    const t = testStreams({ stdoutIsTTY: true });
    t.io.columns = 60;
    const subs = [{ id: 'whsub_9ea4df0e2b4c5d', name: 'svc on vm', url: 'https://shop.example/a-long-path/webhooks', events: 'RETURN_REQUESTED,CREDIT_NOTE_CREATED', created: '2026-11-26 10:31 GMT+9' }];
    await writeList(t.io, subs, [
      { header: 'ID', value: (r) => r.id, id: 12 },
      { header: 'NAME', value: (r) => r.name, flex: true },
      { header: 'URL', value: (r) => r.url, flex: true },
      { header: 'EVENTS', value: (r) => r.events, drop: 1 },
      { header: 'CREATED', value: (r) => r.created, whole: true },
    ]);
    const { displayWidth } = await import('../../src/io/width.js');
    const lines = t.stdout().split('\n').filter(Boolean);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(60);
    expect(lines[1]).toMatch(/^whsub_9ea4df  .*  2026-11-26 10:31 GMT\+9$/);
  });

  it('at 60 columns leaves out the columns that do not fit whole, by priority, and says which on the count line', async () => {
    const t = testStreams({ stdoutIsTTY: true });
    t.io.columns = 60;
    const queue = [
      { id: '986e72c4-cf47-4076-b16c-e32ed755b45a', receipt: 'R-2026-0008', status: 'PARTIALLY_ACCEPTED', age: '7d', items: '2 (2 lines)', refund: 'ORIGINAL_PAYMENT_METHOD', note: 'the milk was sour, please refund' },
    ];
    type Q = (typeof queue)[number];
    const cols = [
      { header: 'REQUEST ID', value: (r: Q) => r.id, id: true },
      { header: 'RECEIPT', value: (r: Q) => r.receipt },
      { header: 'STATUS', value: (r: Q) => r.status },
      { header: 'AGE', value: (r: Q) => r.age, align: 'right' as const },
      { header: 'ITEMS', value: (r: Q) => r.items, drop: 1 },
      { header: 'REFUND', value: (r: Q) => r.refund, drop: 2 },
      { header: 'NOTE', value: (r: Q) => r.note, flex: true },
    ];
    await writeList(t.io, queue, cols, queue, { footer: '1 request · 1 pending' });
    const { displayWidth } = await import('../../src/io/width.js');
    const lines = t.stdout().split('\n').filter(Boolean);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(60);
    expect(lines[0]).toBe('REQUEST ID  RECEIPT      STATUS              AGE  NOTE');
    // Nothing but the long text is cut: the status, the receipt and the refund are whole or not there.
    expect(lines[1]).toMatch(/^986e72c4    R-2026-0008  PARTIALLY_ACCEPTED   7d  the milk ?…$/);
    // The note, with how to see what it names, is too long for the count line: on its own.
    expect(lines.slice(2)).toEqual(['1 request · 1 pending', 'not shown: ITEMS, REFUND (--json has them)']);
    // At 80 the items come back; the refund (dropped first) still does not fit whole.
    const wide = testStreams({ stdoutIsTTY: true });
    wide.io.columns = 80;
    await writeList(wide.io, queue, cols, queue, { footer: '1 request · 1 pending' });
    const at80 = wide.stdout().split('\n').filter(Boolean);
    for (const line of at80) expect(displayWidth(line)).toBeLessThanOrEqual(80);
    expect(at80[0]).toBe('REQUEST ID  RECEIPT      STATUS              AGE  ITEMS        NOTE');
    expect(at80[2]).toBe('1 request · 1 pending · not shown: REFUND (--json has them)');
    expect(at80.join('\n')).not.toMatch(/ORIGINAL_PA|PARTIALLY_ACC…|R-2026-0…/);
  });

  it('an ID cut to its prefix under a wider header takes its short header (Column.short), and the room it frees', async () => {
    const t = testStreams({ stdoutIsTTY: true });
    t.io.columns = 60;
    const receipts = [{ id: '0b7e6c1a-1111-4aaa-8bbb-000000000001', doc: 'R-2025-000871-1', issued: '2026-11-26 09:07 UTC', total: '20.51 EUR', recipients: '3' }];
    type R = (typeof receipts)[number];
    await writeList(t.io, receipts, [
      { header: 'SERVICE RECEIPT ID', short: 'ID', value: (r: R) => r.id, id: true },
      { header: 'DOCUMENT', value: (r: R) => r.doc },
      { header: 'ISSUED', value: (r: R) => r.issued, whole: true, drop: 1 },
      { header: 'TOTAL', value: (r: R) => r.total },
      { header: 'RECIPIENTS', value: (r: R) => r.recipients, drop: 2 },
    ]);
    expect(t.stdout()).toBe(
      ['ID        DOCUMENT         ISSUED                TOTAL', '0b7e6c1a  R-2025-000871-1  2026-11-26 09:07 UTC  20.51 EUR', 'not shown: RECIPIENTS (--json has them)', ''].join('\n'),
    );
    const wide = testStreams({ stdoutIsTTY: true });
    wide.io.columns = 120;
    await writeList(wide.io, receipts, [{ header: 'SERVICE RECEIPT ID', short: 'ID', value: (r: R) => r.id, id: true }]);
    expect(wide.stdout().split('\n')[0]).toBe('SERVICE RECEIPT ID');
    // Cut to its prefix, with room to spare: the whole header over the prefix.
    const roomy = testStreams({ stdoutIsTTY: true });
    roomy.io.columns = 30;
    await writeList(roomy.io, receipts, [
      { header: 'SERVICE RECEIPT ID', short: 'ID', value: (r: R) => r.id, id: true },
      { header: 'TOTAL', value: (r: R) => r.total },
    ]);
    expect(roomy.stdout()).toBe('SERVICE RECEIPT ID  TOTAL\n0b7e6c1a            20.51 EUR\n');
  });

  it('the note of left-out columns goes on its own line when the count line is long, or alone without one', async () => {
    const t = testStreams({ stdoutIsTTY: true });
    t.io.columns = 30;
    const rows2 = [{ id: 'a1', status: 'ACCEPTED', refund: 'ORIGINAL_PAYMENT_METHOD' }];
    type R = (typeof rows2)[number];
    const cols = [
      { header: 'ID', value: (r: R) => r.id },
      { header: 'STATUS', value: (r: R) => r.status },
      { header: 'REFUND', value: (r: R) => r.refund },
    ];
    await writeList(t.io, rows2, cols);
    expect(t.stdout()).toBe('ID  STATUS\na1  ACCEPTED\nnot shown: REFUND\n');
    const u = testStreams({ stdoutIsTTY: true });
    u.io.columns = 30;
    await writeList(u.io, rows2, cols, rows2, { footer: '1 request, 1 accepted' });
    expect(u.stdout().split('\n').slice(2)).toEqual(['1 request, 1 accepted', 'not shown: REFUND', '']);
  });

  it('a watch of maxRows: the note on a line of its own takes a row\'s place, so the frame keeps its height', async () => {
    const t = testStreams({ stdoutIsTTY: true });
    t.io.columns = 30;
    const many = Array.from({ length: 10 }, (_, i) => ({ id: `a${i}`, status: 'ACCEPTED', refund: 'ORIGINAL_PAYMENT_METHOD' }));
    type R = (typeof many)[number];
    await writeList(t.io, many, [
      { header: 'ID', value: (r: R) => r.id },
      { header: 'STATUS', value: (r: R) => r.status },
      { header: 'REFUND', value: (r: R) => r.refund },
    ], many, { footer: '10 requests · 10 accepted · updated 12:00', maxRows: 5, moreHow: 'narrow it with --status, --receipt or --limit' });
    const lines = t.stdout().split('\n').slice(0, -1);
    // Header, 2 rows, "… 8 more", the count line wrapped between its parts (no figure cut), the
    // note: maxRows + 2, as with one footer line.
    expect(lines).toHaveLength(7);
    expect(lines.slice(-4)).toEqual(['… 8 more (narrow it with --st…', '10 requests · 10 accepted', 'updated 12:00', 'not shown: REFUND']);
  });

  it('prints tab-separated rows without a header when piped, every value whole, tabs and line breaks escaped', async () => {
    const t = testStreams({ stdoutIsTTY: false });
    await writeList(t.io, [...rows, { id: 'c3', name: 'two\nlines \\ 😀' }], columns);
    expect(t.stdout()).toBe('a1\tFirst\\tone\nb2\tSecond\nc3\ttwo\\nlines \\\\ 😀\n');
  });

  it('prints JSON and nothing else with --json, TTY or not', async () => {
    for (const stdoutIsTTY of [true, false]) {
      const t = testStreams({ stdoutIsTTY, json: true });
      await writeList(t.io, rows, columns);
      expect(JSON.parse(t.stdout())).toEqual(rows);
      expect(t.stderr()).toBe('');
    }
  });

  it('an empty list is an empty JSON array, and says so on a TTY', async () => {
    const j = testStreams({ json: true });
    await writeList(j.io, [], columns);
    expect(JSON.parse(j.stdout())).toEqual([]);
    const tty = testStreams({ stdoutIsTTY: true });
    await writeList(tty.io, [], columns);
    expect(tty.stdout()).toBe('');
    expect(tty.stderr()).toContain('nothing to show');
  });
});

describe('writeRecord', () => {
  it('aligns keys, or prints the JSON value', () => {
    const t = testStreams();
    writeRecord(t.io, [['id', 'x'], ['status', 'ok']], { id: 'x' });
    expect(t.stdout()).toBe('id      x\nstatus  ok\n');
    const j = testStreams({ json: true });
    writeRecord(j.io, [['id', 'x']], { id: 'x' });
    expect(JSON.parse(j.stdout())).toEqual({ id: 'x' });
  });
});

describe('colour and prompt rules', () => {
  it.each([
    [{}, false, true, true],
    [{}, false, false, false],
    [{ NO_COLOR: '1' }, false, true, false],
    [{ NO_COLOR: '' }, false, true, true],
    [{ FORCE_COLOR: '1' }, false, false, true],
    [{ FORCE_COLOR: '0' }, false, true, false],
    [{ FORCE_COLOR: '1', NO_COLOR: '1' }, false, true, false],
    [{}, true, true, false],
    [{ TERM: 'dumb' }, false, true, false],
  ])('env %j, --no-color %s, tty %s → %s', (env, noColorFlag, isTTY, expected) => {
    expect(colorEnabled({ env, noColorFlag, isTTY })).toBe(expected);
  });

  it('CI detection', () => {
    expect(isCI({ CI: 'true' })).toBe(true);
    expect(isCI({ CI: '1' })).toBe(true);
    expect(isCI({ CI: 'false' })).toBe(false);
    expect(isCI({ CI: '0' })).toBe(false);
    expect(isCI({})).toBe(false);
  });

  it('prompts only with a TTY on both ends and input allowed', () => {
    expect(canPrompt(testStreams({ stdinIsTTY: true, stdoutIsTTY: true, noInput: false }).io)).toBe(true);
    expect(canPrompt(testStreams({ stdinIsTTY: false, stdoutIsTTY: true, noInput: false }).io)).toBe(false);
    expect(canPrompt(testStreams({ stdinIsTTY: true, stdoutIsTTY: false, noInput: false }).io)).toBe(false);
    expect(canPrompt(testStreams({ stdinIsTTY: true, stdoutIsTTY: true, noInput: true }).io)).toBe(false);
  });
});
