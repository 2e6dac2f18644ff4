// Define vs run: argv parses into each verb's typed options without running anything.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CommandContext, VerbLoader } from '../../src/commands/context.js';
import { globalsOf } from '../../src/commands/context.js';
import { buildProgram, nounOf } from '../../src/root.js';

function parse(argv: string[]) {
  const calls: { opts: unknown; globals: ReturnType<typeof globalsOf> }[] = [];
  const ctx: CommandContext = {
    async run<O>(cmd: Command, _load: VerbLoader<O>, opts: O) {
      calls.push({ opts, globals: globalsOf(cmd) });
    },
  };
  // As src/main.ts builds it: only the noun's commands, when the line names one.
  const program = buildProgram(ctx, { writeOut: () => {}, writeErr: () => {} }, nounOf(argv));
  return program.parseAsync(argv, { from: 'user' }).then(() => calls);
}

describe('the tree a command line needs', () => {
  it('nounOf: the first word that is not a global option or its value, when it is a noun', () => {
    expect(nounOf(['sandbox', 'outbox', '--json'])).toBe('sandbox');
    expect(nounOf(['--profile', 'receipt', '--base-url', 'http://127.0.0.1:1', 'credit-note', 'poll'])).toBe('credit-note');
    expect(nounOf(['--jq', '.[]', 'grants', 'list'])).toBe('grants');
    expect(nounOf(['--json', '--no-input', 'webhook', 'listen'])).toBe('webhook');
    for (const whole of [[], ['--help'], ['help', 'receipt'], ['demo'], ['__complete', 'receipt'], ['completion', 'bash'], ['sandbx'], ['--', 'receipt']]) expect(nounOf(whole), whole.join(' ')).toBeUndefined();
  });

  it('a noun alone defines its own commands, the same as the whole tree does', () => {
    const ctx: CommandContext = { run: async () => undefined };
    const whole = buildProgram(ctx);
    const walk = (cmd: Command, path = ''): string[] => [`${path}: ${cmd.options.map((o) => o.flags).join(' ')} | ${cmd.registeredArguments.map((a) => a.name()).join(' ')}`, ...cmd.commands.flatMap((c) => walk(c, `${path} ${c.name()}`))];
    for (const noun of whole.commands.map((c) => c.name()).filter((n) => nounOf([n]) !== undefined)) {
      const only = buildProgram(ctx, undefined, noun);
      expect(only.commands.map((c) => c.name())).toEqual([noun]);
      expect(walk(only.commands[0]!, noun)).toEqual(walk(whole.commands.find((c) => c.name() === noun)!, noun));
      expect(only.options.map((o) => o.flags)).toEqual(whole.options.map((o) => o.flags));
    }
  });
});

describe('argv → options', () => {
  it('config set', async () => {
    const [call] = await parse(['config', 'set', 'base-url', 'https://x.example.com']);
    expect(call?.opts).toEqual({ key: 'base-url', value: 'https://x.example.com' });
  });

  it('global flags are accepted after the verb too', async () => {
    const [call] = await parse(['config', 'list', '--json', '--profile', 'production', '--no-input', '--debug', '--no-color']);
    expect(call?.globals).toEqual({ profile: 'production', baseUrl: undefined, json: true, input: false, debug: true, color: false });
  });

  it('defaults of the globals', async () => {
    const [call] = await parse(['config', 'list']);
    expect(call?.globals).toEqual({ profile: undefined, baseUrl: undefined, json: false, input: true, debug: false, color: true });
  });

  it('repeatable --item collects every value', async () => {
    const [call] = await parse(['sandbox', 'trigger', 'return-request', 'R1', '--item', 'p1:2', '--item', 'p2:1', '--refund', 'BANK_TRANSFER']);
    expect(call?.opts).toEqual({ serviceReceiptId: 'R1', item: ['p1:2', 'p2:1'], refund: 'BANK_TRANSFER' });
  });

  it('credit-note issue maps its flags', async () => {
    const [call] = await parse(['credit-note', 'issue', 'REQ', '--yes', '--complete', '--document-number', 'CN-1']);
    expect(call?.opts).toEqual({ requestId: 'REQ', yes: true, complete: true, documentNumber: 'CN-1' });
  });

  it('a missing argument is a commander error, not a run', async () => {
    await expect(parse(['config', 'get'])).rejects.toMatchObject({ code: 'commander.missingArgument' });
  });

  it('completion only accepts the three shells', async () => {
    await expect(parse(['completion', 'tcsh'])).rejects.toMatchObject({ code: 'commander.invalidArgument' });
  });
});
