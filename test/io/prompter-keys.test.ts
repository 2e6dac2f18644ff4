// The prompts a person works a list with, answered through the injected stdin as a terminal
// would send the keys: one key without Enter, Esc backing out of a choice, a default to edit.
import { describe, expect, it } from 'vitest';
import { CancelError } from '../../src/errors.js';
import { createPrompter } from '../../src/io/prompter.js';
import { testStreams } from '../../src/io/test-streams.js';

const terminal = () => testStreams({ stdinIsTTY: true, stdoutIsTTY: true, noInput: false });
/** Bytes as a terminal sends them, once the prompt listens. */
const type = (t: ReturnType<typeof terminal>, ...chunks: string[]) =>
  setTimeout(() => {
    for (const chunk of chunks) t.input.write(chunk);
  }, 30);

const KEYS = [
  { key: 'a', name: 'accept' },
  { key: 'r', name: 'reject' },
  { key: 'q', name: 'quit' },
] as const;

describe('key prompt', () => {
  it('answers the first key that means something, without Enter; other keys do nothing', async () => {
    const t = terminal();
    const answer = createPrompter(t.io).key({ message: 'req-1 PENDING:', flag: '--x', keys: KEYS });
    type(t, 'x', '7', 'R');
    await expect(answer).resolves.toBe('r');
    expect(t.stderr()).toContain('a accept · r reject · q quit');
    expect(t.stderr()).toContain('req-1 PENDING: reject');
    expect(t.stdout()).toBe('');
  });

  it('keys that arrive together (a and r typed in one go): the first is the answer, and the line left names it', async () => {
    const t = terminal();
    const answer = createPrompter(t.io).key({ message: 'req-1 PENDING:', flag: '--x', keys: KEYS });
    type(t, 'ar');
    await expect(answer).resolves.toBe('a');
    expect(t.stderr()).toContain('req-1 PENDING: accept');
    expect(t.stderr()).not.toContain('req-1 PENDING: reject');
  });

  it('Esc and Ctrl-C are a CancelError (exit 3)', async () => {
    for (const keys of ['\x1b', '\x03']) {
      const t = terminal();
      const answer = createPrompter(t.io).key({ message: 'req-1:', flag: '--x', keys: KEYS });
      type(t, keys);
      await expect(answer).rejects.toBeInstanceOf(CancelError);
    }
  });
});

describe('select', () => {
  it('arrow keys and Enter choose; Esc backs out with a CancelError, arrow keys (which start with Esc) do not', async () => {
    const choices = ['one', 'two', 'three'].map((name) => ({ name, value: name }));
    const t = terminal();
    const chosen = createPrompter(t.io).select({ message: 'Which?', flag: '--x', choices });
    type(t, '\x1b[B', '\x1b[B', '\x1b[A', '\r');
    await expect(chosen).resolves.toBe('two');

    const escaped = terminal();
    const backedOut = createPrompter(escaped.io).select({ message: 'Which?', flag: '--x', choices });
    type(escaped, '\x1b[B', '\x1b');
    await expect(backedOut).rejects.toBeInstanceOf(CancelError);
  });
});

describe('input', () => {
  it('an editable default stands in the line; validation asks again with its message', async () => {
    const t = terminal();
    const answer = createPrompter(t.io).input({
      message: 'Which part?',
      flag: '--item',
      default: 'SKU-1:3',
      editable: true,
      validate: (v) => (v.endsWith(':1') ? true : 'lower it to 1'),
    });
    type(t, '\r');
    setTimeout(() => t.input.write('\x7f1\r'), 150);
    await expect(answer).resolves.toBe('SKU-1:1');
    expect(t.stderr()).toContain('lower it to 1');
  });
});
