// Define vs run: argv parses into each verb's typed options without running anything.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CommandContext, VerbLoader } from '../../src/commands/context.js';
import { globalsOf } from '../../src/commands/context.js';
import { buildProgram } from '../../src/root.js';

function parse(argv: string[]) {
  const calls: { opts: unknown; globals: ReturnType<typeof globalsOf> }[] = [];
  const ctx: CommandContext = {
    async run<O>(cmd: Command, _load: VerbLoader<O>, opts: O) {
      calls.push({ opts, globals: globalsOf(cmd) });
    },
  };
  const program = buildProgram(ctx, { writeOut: () => {}, writeErr: () => {} });
  return program.parseAsync(argv, { from: 'user' }).then(() => calls);
}

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
