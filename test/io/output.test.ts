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
    expect(narrow[3]).toMatch(/^whsub_5f  /);
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
      { header: 'EVENTS', value: (r) => r.events },
      { header: 'CREATED', value: (r) => r.created, whole: true },
    ]);
    const { displayWidth } = await import('../../src/io/width.js');
    const lines = t.stdout().split('\n').filter(Boolean);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(60);
    expect(lines[1]).toMatch(/^whsub_9ea4df  .*  2026-11-26 10:31 GMT\+9$/);
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
