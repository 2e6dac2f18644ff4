// Shared by every end-to-end test: run the built `svc` (bin/svc.js → dist/) as a user
// would, with its own config and state directories, and run a sandbox beside it.
// `npm test` builds first; run `npm run build` before `vitest run test/e2e` by hand.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const svcBin = join(repoRoot, 'bin', 'svc.js');

export interface TempDirs {
  /** A fresh empty directory, removed by `cleanup`. */
  make(prefix?: string): Promise<string>;
  cleanup(): Promise<void>;
}

/** Call `cleanup` in afterAll/afterEach. */
export function tempDirs(): TempDirs {
  const made: string[] = [];
  return {
    async make(prefix = 'svc-e2e-') {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
    async cleanup() {
      // Retried: a process a test started may still be finishing a write there (fish writes its
      // generated completions in the background after its terminal is gone).
      await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })));
    },
  };
}

/** The directories one simulated machine keeps svc's files in. */
export interface SvcHome {
  configDir: string;
  stateDir: string;
}

export async function makeSvcHome(dirs: TempDirs): Promise<SvcHome> {
  return { configDir: await dirs.make('svc-config-'), stateDir: await dirs.make('svc-state-') };
}

export interface RunOptions {
  /** Config and state directories to share between runs; default: fresh ones, removed afterwards. */
  home?: SvcHome;
  /** Added to the environment (after the test defaults, so they can be overridden); undefined removes a variable. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed; without it stdin is empty. */
  input?: string | Buffer;
  cwd?: string;
  /** Milliseconds; default 30 s. */
  timeout?: number;
}

export interface SvcResult {
  /** undefined when a signal ended the process. */
  exitCode: number | undefined;
  signal: string | undefined;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/**
 * The environment of a test run: the developer's own SVC_* settings, CI and colour
 * variables would change what svc does, so they are dropped.
 */
export function svcEnv(home: SvcHome, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(SVC_|CI$|FORCE_COLOR$|NO_COLOR$)/.test(name)) env[name] = value;
  }
  Object.assign(env, {
    NO_COLOR: '1',
    SVC_CONFIG_DIR: home.configDir,
    SVC_STATE_DIR: home.stateDir,
    SVC_SECRET_STORE: 'file',
    // Every sandbox of the tests checks what it answers against the interface's schemas.
    SVC_SANDBOX_CHECK_CONTRACT: '1',
    ...extra,
  });
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Runs `svc ARGS`; never rejects on a non-zero exit, so tests assert on `exitCode`. */
export async function runSvc(args: readonly string[], opts: RunOptions = {}): Promise<SvcResult> {
  const dirs = tempDirs();
  const home = opts.home ?? (await makeSvcHome(dirs));
  try {
    const result = await execa('node', [svcBin, ...args], {
      env: svcEnv(home, opts.env),
      extendEnv: false,
      cwd: opts.cwd ?? repoRoot,
      timeout: opts.timeout ?? 30_000,
      reject: false,
      stripFinalNewline: false,
      ...(opts.input === undefined ? { stdin: 'ignore' as const } : { input: opts.input }),
    });
    return {
      exitCode: result.exitCode,
      signal: result.signal,
      stdout: result.stdout,
      stderr: result.stderr,
      timedOut: result.timedOut,
    };
  } finally {
    await dirs.cleanup();
  }
}

export interface SandboxProcess {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** Everything the sandbox wrote to stderr so far (request lines, errors), for failure messages. */
  stderr(): string;
  /** Resolves once stderr matches; stderr is a separate pipe, so it can lag behind the URL line. */
  waitForStderr(pattern: string | RegExp, timeoutMs?: number): Promise<void>;
  /** SIGTERM, then waits for the exit; idempotent. */
  stop(): Promise<SvcResult>;
  /** kill -9, then waits for the exit (a crash: nothing gets to run). */
  crash(): Promise<void>;
}

const LISTENING = /^listening on (http:\/\/\S+)$/;

/**
 * Runs `svc sandbox start --port 0 ARGS` and resolves once its first stdout line names the
 * URL. Stop it in afterAll/afterEach.
 */
export async function startSandbox(args: readonly string[] = [], opts: Omit<RunOptions, 'input'> = {}): Promise<SandboxProcess> {
  const dirs = tempDirs();
  const home = opts.home ?? (await makeSvcHome(dirs));
  const child = execa('node', [svcBin, 'sandbox', 'start', '--port', '0', ...args], {
    env: svcEnv(home, opts.env),
    extendEnv: false,
    cwd: opts.cwd ?? repoRoot,
    reject: false,
    stdin: 'ignore',
    forceKillAfterDelay: 5_000,
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });

  let stopping: Promise<SvcResult> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      child.kill('SIGTERM');
      const result = await child;
      await dirs.cleanup();
      // An answer that broke the interface's schemas (SVC_SANDBOX_CHECK_CONTRACT) fails the suite.
      const violations = stderr.split('\n').filter((line) => line.includes('contract violation'));
      if (violations.length > 0) throw new Error(`the sandbox broke the contract:\n${violations.join('\n')}`);
      return { exitCode: result.exitCode, signal: result.signal, stdout: String(result.stdout), stderr, timedOut: result.timedOut };
    })());

  try {
    const url = await firstLine(child, opts.timeout ?? 15_000).then((line) => {
      const match = LISTENING.exec(line);
      if (!match?.[1]) throw new Error(`the first stdout line of \`svc sandbox start\` is not "listening on URL": ${JSON.stringify(line)}`);
      return match[1];
    });
    const waitForStderr = async (pattern: string | RegExp, timeoutMs = 5_000) => {
      const seen = () => (typeof pattern === 'string' ? stderr.includes(pattern) : pattern.test(stderr));
      for (const deadline = Date.now() + timeoutMs; !seen(); ) {
        if (Date.now() > deadline) throw new Error(`the sandbox's stderr never matched ${String(pattern)}:\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const crash = async () => {
      child.kill('SIGKILL');
      await child;
      await stop();
    };
    return { url, stderr: () => stderr, waitForStderr, stop, crash };
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\nstderr:\n${stderr}`, { cause: error });
  }
}

function firstLine(child: ResultPromise, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const done = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const end = seen.indexOf('\n');
      if (end !== -1) {
        done();
        resolve(seen.slice(0, end));
      }
    };
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`\`svc sandbox start\` exited (${code}) before printing its URL`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`\`svc sandbox start\` printed no URL within ${timeoutMs} ms`));
    }, timeoutMs);
    child.stdout?.on('data', onData);
    child.on('exit', onExit);
  });
}
