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
    expect((err as UsageError).message).toBe('Issue the credit note: no value and prompts are off');
    expect((err as UsageError).hint).toBe('pass --yes');
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
});
