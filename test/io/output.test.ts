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
  it('prints a table with headers on a TTY', async () => {
    const t = testStreams({ stdoutIsTTY: true });
    await writeList(t.io, rows, columns);
    const out = t.stdout();
    expect(out).toMatch(/ID\s+│\s+NAME/);
    expect(out).toContain('a1');
    expect(out).toMatch(/[┌│└]/);
    expect(out).not.toContain('\x1b['); // colour off
  });

  it('prints tab-separated rows without a header when piped', async () => {
    const t = testStreams({ stdoutIsTTY: false });
    await writeList(t.io, rows, columns);
    expect(t.stdout()).toBe('a1\tFirst one\nb2\tSecond\n');
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
