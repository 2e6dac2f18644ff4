// `--limit` of `webhook events` and `credit-note poll`: one parser, one set of messages. A
// number too large is said to be too large, with the most the flag takes, not "not a whole number".
import { afterEach, describe, expect, it } from 'vitest';
import { arrangement } from '../../src/commands/credit-note/poll.js';
import { run as events } from '../../src/commands/webhook/events.js';
import { UsageError } from '../../src/errors.js';
import { closeHarnesses, harness } from './receipts-setup.js';

afterEach(closeHarnesses);

const commands: [string, (limit: string) => Promise<unknown>][] = [
  ['webhook events', async (limit) => events({ limit }, (await harness()).f)],
  ['credit-note poll', async (limit) => arrangement({ limit })],
];

describe.each(commands)('svc %s --limit', (_name, withLimit) => {
  const refusal = async (limit: string) => {
    const error = await withLimit(limit).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  };

  it('a whole number too large is said to be too large, naming the most it takes', async () => {
    const error = await refusal('99999999999999999999');
    expect(error.message).toBe('--limit: 99999999999999999999 is more than 999,999,999, the most it takes');
    expect(error.hint).toBe('--limit takes a whole number from 1 to 999,999,999');
  });

  it('0 is less than the least it takes; what is no whole number is said to be none', async () => {
    expect((await refusal('0')).message).toBe('--limit: 0 is less than 1, the least it takes');
    for (const value of ['abc', '-1', '2.5', '1e3', '0x10', '']) {
      const error = await refusal(value);
      expect(error.message).toBe(`--limit: "${value}" is not a whole number`);
      expect(error.hint).toBe('--limit takes a whole number from 1 to 999,999,999');
    }
  });

  it('takes 1 and 999,999,999', async () => {
    await expect(withLimit('999999999').then(() => 'ok', (e: unknown) => (e instanceof UsageError ? e.message : 'ok'))).resolves.not.toMatch(/--limit/);
    await expect(withLimit('1').then(() => 'ok', (e: unknown) => (e instanceof UsageError ? e.message : 'ok'))).resolves.not.toMatch(/--limit/);
  });
});
