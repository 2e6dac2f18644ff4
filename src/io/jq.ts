// `--jq EXPR` (docs/interface-decisions.md#json-output): a command's JSON output filtered by a real jq (jq 1.7 compiled to
// WebAssembly, from the jq-wasm package, made fit by scripts/jq-runtime.mjs at build time).
// The command writes its --json output as always, into a buffer; the filter runs over it once
// the command has finished, whether it succeeded or not (a batch that partly failed still has
// its results filtered), every JSON value of it, NDJSON too, as jq reads a stream; strings
// come out raw, as with `gh --jq`. jq sees the process's environment (`env.WANT`, `$ENV`).
// Most filters run in JavaScript (src/io/jq-fast.ts), exactly as jq would or not at all; the
// others, and every input or error that path steps aside from, run in jq itself, whose binary is
// then compiled in the background while the command runs.
import { readFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { JqHaltError, UsageError } from '../errors.js';
import { packageFile } from '../package-root.js';
import { compileFastJq } from './jq-fast.js';
import type { IOStreams } from './streams.js';

export interface JqCapture {
  /** The streams the command writes to: stdout collected, the rest as they were. */
  io: IOStreams;
  /**
   * Runs the filter over what was collected and writes its output to the real stdout. jq's
   * failures are thrown (a filter it refuses or that fails on the data: UsageError; halt_error:
   * JqHaltError), unless the command has failed already (`commandFailed`): then jq's message
   * goes to stderr as jq writes it, and the command's own error is the one reported.
   */
  finish(commandFailed: boolean): Promise<void>;
  /**
   * Refuses, before the command does anything, a filter jq cannot compile: found only at
   * `finish`, a receipt would be issued and the command then exit 2, which reads as nothing done.
   */
  check(): Promise<void>;
}

interface JqRun {
  status: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
}
interface JqModule {
  svcRun(input: Uint8Array, args: string[]): Promise<JqRun>;
}
type JqFactory = (moduleArg: object) => Promise<JqModule>;

const HINT = 'see https://jqlang.org/manual/ for the filter language';

export function captureForJq(io: IOStreams, filter: string, env: Readonly<Record<string, string | undefined>>): JqCapture {
  const collector = new PassThrough();
  const chunks: Buffer[] = [];
  collector.on('data', (chunk: Buffer) => chunks.push(chunk));
  const fast = compileFastJq(filter);
  // Without the fast path, jq is started now, so that compiling overlaps the command's own work.
  const jq = fast === undefined ? loadJq(env) : undefined;
  jq?.catch(() => undefined);
  return {
    io: { ...io, stdout: collector, unfilteredStdout: io.stdout, stdoutIsTTY: false, json: true },
    async check() {
      // What the fast path compiles, jq compiles; jq with no input compiles the filter and runs nothing.
      if (fast !== undefined || filter === '') return;
      const run = await (await jqInstance(env)).svcRun(new Uint8Array(0), [filter]);
      if (run.status === 0) return;
      const message = Buffer.from(run.stderr).toString('utf8');
      throw new UsageError(`--jq: ${message.split('\n')[0] ?? message}`, { hint: HINT });
    },
    async finish(commandFailed) {
      const input = Buffer.concat(chunks);
      const text = input.toString('utf8');
      if (text.trim() === '') return;
      const quick = fast?.run(text, env);
      if (quick !== undefined) {
        if (quick !== '') io.stdout.write(quick);
        return;
      }
      // `--jq ''` is jq's empty program, the identity, as `jq ''` is.
      const run = await (await (jq ?? loadJq(env))).svcRun(input, ['-r', '-M', filter === '' ? '.' : filter]);
      if (run.stdout.length > 0) io.stdout.write(run.stdout);
      const message = Buffer.from(run.stderr).toString('utf8');
      if (run.status === 0) {
        if (message !== '') io.stderr.write(message);
        return;
      }
      if (commandFailed) {
        io.stderr.write(message.endsWith('\n') || message === '' ? message : `${message}\n`);
        return;
      }
      // jq's own failures (3: a filter it cannot compile, 5: an error on the data) say "jq: ";
      // anything else came from halt_error, whose message and status are the script's.
      if (!message.startsWith('jq: ')) throw new JqHaltError(message, run.status);
      const first = message.split('\n')[0] ?? message;
      // Earlier values of a filter that failed on the data are printed, as jq prints them.
      throw new UsageError(`--jq: ${first}`, { hint: HINT });
    },
  };
}

// Node's WebAssembly, which TypeScript's lib for Node (without the DOM's) does not declare.
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<unknown>; Instance: new (module: unknown, imports: object) => unknown } }).WebAssembly;

let binary: Promise<{ compiled: unknown; factory: JqFactory }> | undefined;
let loaded: Promise<JqModule> | undefined;

/** jq's binary, compiled once per process, and its runtime. */
function jqBinary(): Promise<{ compiled: unknown; factory: JqFactory }> {
  binary ??= (async () => {
    const [bytes, runtime] = await Promise.all([
      readFile(packageFile('dist/jq.wasm')),
      // Bundled in its patched form (scripts/jq-runtime.mjs), whose type is JqFactory.
      import('jq-wasm/dist/build/jq.js') as Promise<unknown>,
    ]);
    return { compiled: await wasm.compile(bytes), factory: (runtime as { default?: JqFactory }).default ?? (runtime as unknown as JqFactory) };
  })();
  return binary;
}

/** An instance of jq with the process's environment. One runs one program: jq's main keeps state between runs. */
async function jqInstance(env: Readonly<Record<string, string | undefined>>): Promise<JqModule> {
  const { compiled, factory } = await jqBinary();
  return factory({
    svcEnv: wasmEnvironment(env),
    instantiateWasm(imports: object, receive: (instance: unknown, module: unknown) => void) {
      receive(new wasm.Instance(compiled, imports), compiled);
      return {};
    },
  });
}

/** The instance that filters the output, made once per process. */
function loadJq(env: Readonly<Record<string, string | undefined>>): Promise<JqModule> {
  loaded ??= jqInstance(env);
  return loaded;
}

/**
 * The process's environment as the runtime hands it to jq: exactly these variables (the
 * runtime's own USER=web_user, HOME=/home/web_user... removed), each value as its UTF-8 bytes,
 * one character per byte, as the runtime copies them.
 */
function wasmEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const result: Record<string, string | undefined> = { USER: undefined, LOGNAME: undefined, PATH: undefined, PWD: undefined, HOME: undefined, LANG: undefined, _: undefined };
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined) result[name] = Buffer.from(value, 'utf8').toString('latin1');
  }
  return result;
}
