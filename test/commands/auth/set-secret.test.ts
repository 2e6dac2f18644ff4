import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/auth/set-secret.js';
import type { CommandContext, VerbLoader } from '../../../src/commands/context.js';
import { memoryConfigStore } from '../../../src/config/store.js';
import { UsageError } from '../../../src/errors.js';
import { createFactory } from '../../../src/factory.js';
import { testStreams } from '../../../src/io/test-streams.js';
import { buildProgram } from '../../../src/root.js';
import { memorySecretStore } from '../../../src/secrets/store.js';

function setup(opts: { env?: Record<string, string>; json?: boolean; stdinIsTTY?: boolean; profile?: string } = {}) {
  const t = testStreams({ json: Boolean(opts.json), stdinIsTTY: Boolean(opts.stdinIsTTY) });
  const secrets = memorySecretStore();
  const f = createFactory({
    env: opts.env ?? {},
    globals: { profile: opts.profile, json: Boolean(opts.json), input: false, debug: false, color: false },
    io: t.io,
    config: memoryConfigStore(),
    secrets,
  });
  return { t, f, secrets };
}

const SECRET = 'cs_live_0123456789';

describe('auth set-secret', () => {
  it('stores what stdin gives, without its one trailing newline, and never echoes it', async () => {
    const { t, f, secrets } = setup();
    t.input.end(`${SECRET}\n`);
    await run({ stdin: true }, f);
    expect(secrets.dump()).toEqual({ 'client-secret': SECRET });
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toBe('stored the client secret of profile "local" in in memory (tests)\n');
    expect(t.stderr()).not.toContain(SECRET);
  });

  it('reads stdin without --stdin when stdin is not a terminal, keeping inner whitespace and only one newline off', async () => {
    const { t, f, secrets } = setup();
    t.input.end('a b\n\n');
    await run({ stdin: false }, f);
    expect(secrets.dump()).toEqual({ 'client-secret': 'a b\n' });
  });

  it('refuses an empty secret with a usage error', async () => {
    for (const input of ['', '\n', '  \r\n']) {
      const { t, f, secrets } = setup();
      t.input.end(input);
      await expect(run({ stdin: true }, f)).rejects.toBeInstanceOf(UsageError);
      expect(secrets.dump()).toEqual({});
    }
  });

  it('on a terminal with prompts off, asks for --stdin instead of prompting', async () => {
    const { f } = setup({ stdinIsTTY: true });
    await expect(run({ stdin: false }, f)).rejects.toMatchObject({ name: 'UsageError', hint: 'pass --stdin' });
  });

  it('--json reports where the secret went, not the secret; notes when the environment overrides it', async () => {
    const { t, f } = setup({ json: true, env: { SVC_CLIENT_SECRET: 'env-secret' } });
    t.input.end(SECRET);
    await run({ stdin: true }, f);
    expect(JSON.parse(t.stdout())).toEqual({ profile: 'local', key: 'client-secret', backend: 'memory', store: 'in memory (tests)' });
    expect(t.stderr()).toBe('note: SVC_CLIENT_SECRET is set and takes precedence over the stored secret\n');
  });
});

describe('argv → options', () => {
  async function parse(argv: string[]) {
    const calls: unknown[] = [];
    const ctx: CommandContext = {
      async run<O>(_cmd: Command, _load: VerbLoader<O>, opts: O) {
        calls.push(opts);
      },
    };
    await buildProgram(ctx, { writeOut: () => {}, writeErr: () => {} }).parseAsync(argv, { from: 'user' });
    return calls;
  }

  it('auth set-secret [--stdin] and auth status', async () => {
    expect(await parse(['auth', 'set-secret'])).toEqual([{ stdin: false }]);
    expect(await parse(['auth', 'set-secret', '--stdin'])).toEqual([{ stdin: true }]);
    expect(await parse(['auth', 'status', '--json'])).toEqual([{ check: false }]);
    expect(await parse(['auth', 'status', '--check'])).toEqual([{ check: true }]);
  });
});
