import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { createPrompter } from '../../src/io/prompter.js';
import { testStreams } from '../../src/io/test-streams.js';

describe('prompter', () => {
  it('refuses to prompt when nobody can answer, naming the flag', async () => {
    const t = testStreams({ noInput: true });
    const p = createPrompter(t.io);
    const err = await p.confirm({ message: 'Issue the credit note?', flag: '--yes' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe('Issue the credit note: needs your confirmation, and svc cannot ask: prompts are off (--no-input, or CI)');
    expect((err as UsageError).hint).toBe('pass --yes');
    // Off a terminal (a pipe, a cron job) with prompts allowed: said so, and a value rather than a confirmation.
    const piped = createPrompter(testStreams({ noInput: false, stdinIsTTY: false }).io);
    const missing = await piped.input({ message: 'Client ID:', flag: '--client-id' }).catch((e: unknown) => e);
    expect((missing as UsageError).message).toBe('Client ID: needs a value, and svc cannot ask: this is not a terminal');
    expect((missing as UsageError).hint).toBe('pass --client-id');
  });

  it('reads the answer from the injected stdin', async () => {
    const t = testStreams({ stdinIsTTY: true, stdoutIsTTY: true, noInput: false });
    const p = createPrompter(t.io);
    const answer = p.input({ message: 'Client ID', flag: '--client-id' });
    setTimeout(() => t.input.write('app_123\r'), 20);
    await expect(answer).resolves.toBe('app_123');
    expect(t.stderr()).toContain('Client ID');
    expect(t.stdout()).toBe('');
  });

  it('a confirmation takes only y, yes, n or no (any case), Enter for the default; typed-ahead text is asked again', async () => {
    const t = testStreams({ stdinIsTTY: true, stdoutIsTTY: true, noInput: false });
    const p = createPrompter(t.io);
    const answer = p.confirm({ message: 'Reject R-1?', flag: '--yes' });
    setTimeout(() => t.input.write('yxq\r'), 20);
    setTimeout(() => t.input.write('\x7f\x7f\x7f'), 60);
    setTimeout(() => t.input.write('YES\r'), 100);
    await expect(answer).resolves.toBe(true);
    expect(t.stderr()).toContain('answer y (yes) or n (no)');
    const none = p.confirm({ message: 'Reject R-2?', flag: '--yes' });
    setTimeout(() => t.input.write('\r'), 20);
    await expect(none).resolves.toBe(false);
  });
});
