// Runs real `svc` commands in-process against the demo's embedded sandbox, exactly as a
// user would type them, but with a throwaway config directory and an in-memory secret
// store: the demo never reads or changes the user's profiles or keychain.
import type { Command } from 'commander';
import { mkdir } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { globalsOf, type CommandContext } from '../context.js';
import { openConfigStore } from '../../config/store.js';
import { createFactory, type Env, type Factory } from '../../factory.js';
import { theme } from '../../io/theme.js';
import { memorySecretStore } from '../../secrets/store.js';
import type { BuildProgram } from './index.js';

export interface DemoSession {
  /** Prints `$ svc ARGV`, runs it and returns what it printed on stdout; a failing step fails the demo. */
  svc(argv: readonly string[]): Promise<string>;
  /** The factory a step runs with (same config, secrets and sandbox). */
  factory(overrides?: { json?: boolean }): Factory;
}

export async function createDemoSession(f: Factory, baseUrl: string, home: string, buildProgram: BuildProgram): Promise<DemoSession> {
  const configDir = join(home, 'config');
  const stateDir = join(home, 'state');
  await mkdir(configDir, { recursive: true, mode: 0o700 });
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  // Nothing from the user's environment may point the demo elsewhere.
  const env: Env = {
    ...Object.fromEntries(Object.entries(f.env).filter(([k]) => !k.startsWith('SVC_'))),
    SVC_BASE_URL: baseUrl,
    SVC_CONFIG_DIR: configDir,
    SVC_STATE_DIR: stateDir,
  };
  const config = openConfigStore(configDir);
  const secrets = memorySecretStore({}, 'in memory (this demo only)');
  const t = theme(f.io);

  // What the step being run prints on stdout, echoed to the demo's own stdout as it comes.
  let captured = '';
  const stdout = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      captured += chunk.toString();
      f.io.stdout.write(chunk, done);
    },
  });
  const factory = (overrides: { json?: boolean } = {}, globals = { json: false, input: false, debug: false, color: f.io.color }) =>
    createFactory({
      env,
      globals: { ...globals, json: overrides.json ?? globals.json },
      io: { ...f.io, stdout, json: overrides.json ?? globals.json, noInput: true },
      clock: f.clock,
      config,
      secrets,
      openUrl: playBrowser,
    });

  const ctx: CommandContext = {
    async run(cmd: Command, load, opts) {
      const step = factory({}, { ...globalsOf(cmd), input: false });
      const verb = await load();
      try {
        await verb.run(opts, step);
      } finally {
        await step.dispose();
      }
    },
  };

  return {
    factory: (overrides) => factory(overrides),
    async svc(argv) {
      f.io.stdout.write(`\n${t.dim('$')} ${t.bold(`svc ${argv.map(shellQuote).join(' ')}`)}\n`);
      captured = '';
      const program = buildProgram(ctx, {
        writeOut: (s) => f.io.stdout.write(s),
        writeErr: (s) => f.io.stderr.write(s),
      });
      await program.parseAsync([...argv], { from: 'user' });
      return captured;
    },
  };
}

/**
 * The demo's browser: the sandbox runs with --auto-approve, so GETting the authorization URL
 * answers with the redirect to svc's loopback listener, which we then follow.
 */
async function playBrowser(url: string): Promise<void> {
  const consent = await fetch(url, { redirect: 'manual' });
  const callback = consent.headers.get('location');
  if (consent.status !== 302 || !callback) throw new Error(`the sandbox did not redirect the authorization request (${consent.status})`);
  await (await fetch(callback)).text();
}

/** The step as a user would type it into a POSIX shell. */
function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
