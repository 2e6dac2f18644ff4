// Help people read: examples under every command, global options once (under the root),
// no `help [command]` rows, `svc help …` topics, and a missing argument that says where its
// values come from.
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { EXAMPLES } from '../../src/help/examples.js';
import { commandPathOf } from '../../src/help/polish.js';
import { buildProgram } from '../../src/root.js';
import { parseDrainTimeout } from '../../src/webhook/drain.js';
import { runSvc } from '../e2e/helpers.js';

function allCommands(): Command[] {
  const program = buildProgram({ run: async () => undefined } as never);
  const out: Command[] = [];
  const walk = (c: Command) => {
    for (const sub of c.commands) {
      if ((sub as unknown as { _hidden?: boolean })._hidden) continue;
      out.push(sub);
      walk(sub);
    }
  };
  walk(program);
  return out;
}

describe('help', () => {
  it('every command has examples, and the table names no command that is gone', () => {
    const paths = allCommands().map(commandPathOf);
    expect(paths.filter((p) => (EXAMPLES[p] ?? []).length === 0)).toEqual([]);
    expect(Object.keys(EXAMPLES).filter((p) => p !== '' && !paths.includes(p))).toEqual([]);
  });

  it('a subcommand\'s help has its examples and a one-line summary of the global options, no help row', async () => {
    const { stdout, exitCode } = await runSvc(['credit-note', '--help']);
    expect(exitCode).toBe(0);
    expect(stdout).toContain('Examples:\n  $ svc credit-note poll');
    expect(stdout).toContain('Global options: --profile, --base-url');
    expect(stdout).not.toContain('Global Options:');
    expect(stdout).not.toMatch(/^\s+help \[command\]/m);
  });

  it('svc help, help NOUN VERB, help environment and help exit-codes exit 0; an unknown topic exits 2 naming what there is', async () => {
    for (const args of [['help'], ['help', 'credit-note', 'issue'], ['help', 'environment'], ['help', 'exit-codes']]) {
      const r = await runSvc(args);
      expect(r.exitCode, args.join(' ')).toBe(0);
    }
    expect((await runSvc(['help', 'credit-note', 'issue'])).stdout).toContain('Usage: svc credit-note issue');
    expect((await runSvc(['help', 'environment'])).stdout).toContain('SVC_API_KEY');
    expect((await runSvc(['help', 'exit-codes'])).stdout).toContain('7  conflict');
    const unknown = await runSvc(['help', 'credit-not']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('svc has receipt, credit-note, recipient, webhook, auth, grants');
    expect(unknown.stderr).not.toContain('__complete');
  });

  it('webhook listen --drain-timeout says every signal that drains and what a bare number is, as the parser takes it', () => {
    const listen = allCommands().find((c) => commandPathOf(c) === 'webhook listen')!;
    const help = listen.options.find((o) => o.long === '--drain-timeout')!.description;
    expect(help).toMatch(/SIGTERM, SIGINT or SIGHUP/);
    expect(help).toContain('a bare number is seconds');
    expect(parseDrainTimeout('30')).toBe(parseDrainTimeout('30s'));
    expect(help).toContain('at most 1h');
    expect(() => parseDrainTimeout('3601')).toThrow();
  });

  it('a missing required option names it and what it takes', async () => {
    const r = await runSvc(['webhook', 'subscribe']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('missing --url: notification URL');
    expect(r.stderr).not.toContain("required option '--url <url>' not specified");
  });

  it('a missing argument names it and where its values come from', async () => {
    const r = await runSvc(['credit-note', 'show']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('missing REQUEST-ID: the return request; `svc credit-note poll` lists their IDs');
  });
});
