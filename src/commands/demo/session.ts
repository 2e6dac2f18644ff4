// Runs real `svc` commands in-process against the demo's embedded sandbox, exactly as a
// user would type them, but with a throwaway config directory and an in-memory secret
// store: the demo never reads or changes the user's profiles or keychain.
import type { Command } from 'commander';
import { followAutoApproval } from '../../auth/auto-approve.js';
import { mkdir } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { globalsOf, type CommandContext } from '../context.js';
import { openConfigStore } from '../../config/store.js';
import { createFactory, type Env, type Factory } from '../../factory.js';
import { theme } from '../../io/theme.js';
import type { StopSignal } from '../../io/stop-signal.js';
import { memorySecretStore } from '../../secrets/store.js';
import type { BuildProgram } from './index.js';

export interface DemoSession {
  /** Prints `$ svc ARGV`, runs it and returns what it printed on stdout; a failing step fails the demo. */
  svc(argv: readonly string[]): Promise<string>;
  /**
   * Starts a command that runs until stopped (`webhook listen`), as `svc ARGV &` would,
   * and resolves once it prints `listening on`.
   */
  background(argv: readonly string[]): Promise<BackgroundStep>;
  /** The factory a step runs with (same config, secrets and sandbox). */
  factory(overrides?: { json?: boolean }): Factory;
}

export interface BackgroundStep {
  /** Resolves once the step has printed a line matching `pattern` on stderr. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Asks it to stop, as Ctrl-C would, and waits until it has. */
  stop(): Promise<void>;
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
  const config = await openConfigStore(configDir);
  const secrets = memorySecretStore({}, 'in memory (this demo only)');
  const t = theme(f.io, 'stdout');

  // What the step being run prints on stdout, echoed to the demo's own stdout as it comes.
  let captured = '';
  const stdout = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      captured += chunk.toString();
      // Handed on at once: waiting for the terminal would queue later writes behind it, after
      // whatever the demo prints next.
      f.io.stdout.write(chunk);
      done();
    },
  });
  type Overrides = { json?: boolean; stderr?: Writable; stopSignal?: () => StopSignal };
  const factory = (overrides: Overrides = {}, globals = { json: false, input: false, debug: false, color: f.io.color }) =>
    createFactory({
      env,
      globals: { ...globals, json: overrides.json ?? globals.json },
      io: { ...f.io, stdout, stderr: overrides.stderr ?? f.io.stderr, json: overrides.json ?? globals.json, noInput: true },
      ...(overrides.stopSignal ? { stopSignal: overrides.stopSignal } : {}),
      clock: f.clock,
      config,
      secrets,
      openUrl: (url) => followAutoApproval(url, f.apiAt),
    });

  const contextWith = (overrides: Overrides): CommandContext => ({
    async run(cmd: Command, load, opts) {
      const step = factory(overrides, { ...globalsOf(cmd), input: false });
      const verb = await load();
      try {
        await verb.run(opts, step);
      } finally {
        await step.dispose();
      }
    },
  });
  const echo = (argv: readonly string[], suffix = '') =>
    f.io.stdout.write(`\n${t.dim('$')} ${t.bold(`svc ${argv.map(shellQuote).join(' ')}${suffix}`)}\n`);
  const programWith = (overrides: Overrides) =>
    buildProgram(contextWith(overrides), { writeOut: (text) => f.io.stdout.write(text), writeErr: (text) => f.io.stderr.write(text) });

  return {
    factory: (overrides) => factory(overrides),
    async svc(argv) {
      echo(argv);
      captured = '';
      await programWith({}).parseAsync([...argv], { from: 'user' });
      return captured;
    },
    async background(argv) {
      echo(argv, ' &');
      let said = '';
      const waiters = new Set<() => void>();
      const stderr = new Writable({
        write(chunk: Buffer | string, _encoding, done) {
          said += chunk.toString();
          for (const check of waiters) check();
          f.io.stderr.write(chunk);
          done();
        },
      });
      let stopNow = () => {};
      const stopped = new Promise<string>((resolve) => (stopNow = () => resolve('demo')));
      const running = programWith({ stderr, stopSignal: () => ({ stopped, dispose() {} }) }).parseAsync([...argv], { from: 'user' });
      const waitFor = (pattern: RegExp, timeoutMs = 20_000) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => finish(new Error(`\`svc ${argv.join(' ')}\` did not print ${pattern} in ${timeoutMs / 1000} s`)), timeoutMs);
          const finish = (error?: Error) => {
            clearTimeout(timer);
            waiters.delete(check);
            if (error) reject(error);
            else resolve();
          };
          const check = () => {
            if (pattern.test(said)) finish();
          };
          waiters.add(check);
          check();
          running.then(() => finish(new Error(`\`svc ${argv.join(' ')}\` ended early`)), (error: Error) => finish(error));
        });
      await waitFor(/listening on /);
      return {
        waitFor,
        async stop() {
          stopNow();
          await running;
        },
      };
    },
  };
}

/** The step as a user would type it into a POSIX shell. */
function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
