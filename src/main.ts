// Entry point: build the tree, run it, and turn every outcome into an exit code. This is
// the only place that decides exit codes or prints errors.
import { fstatSync, writeSync } from 'node:fs';
import { CommanderError, type OutputConfiguration } from 'commander';
import type { CommandContext } from './commands/context.js';
import { globalsOf } from './commands/context.js';
import { CancelError, ExitCode, JqHaltError, ReportedError, SvcError, UsageError, errorReport, exitCodeOf, type ErrorReport } from './errors.js';
import type { Factory } from './factory.js';
import { jsonText } from './io/output.js';
import { printable } from './io/printable.js';
import { stdoutReaderGone } from './io/reader-gone.js';
import { stopIsHandled } from './io/stop-signal.js';
import { colorEnabled } from './io/streams.js';
import { reportedColumns } from './io/terminal-columns.js';
import { wrapText } from './io/wrap.js';
import { buildProgram, helpOnlyForKnownCommands, nounOf } from './root.js';
import { ROOT_HELP_SLOT, writeToFd1, type RootHelpSlot } from './startup/help-output.js';

/** Commands that run until stopped: their output is never finished, so --jq cannot filter it. */
const UNTIL_STOPPED = new Set(['webhook listen', 'sandbox start', 'credit-note triage']);

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let factory: Factory | undefined;
  // Ctrl-C anywhere (a login waiting for its browser, a request, a prompt's wait) is a
  // cancel: exit 3, as `svc help exit-codes` says, not the shell's 130. A command that
  // listens for it itself (a server, --watch, a fan-out) stops in its own way instead.
  process.on('SIGINT', () => {
    if (stopIsHandled()) return;
    const interrupted = new CancelError('interrupted (Ctrl-C)');
    try {
      writeSync(2, argv.includes('--json') ? `${jsonText({ error: errorReport(interrupted) })}\n` : `\nerror: ${interrupted.message}\n`);
    } catch {
      // stderr's reader is gone: the code still says it.
    }
    process.exit(ExitCode.cancelled);
  });
  const ctx: CommandContext = {
    async run(cmd, load, opts) {
      // Before the verb's modules build their schemas (src/contract/zod-mode.ts).
      const [{ setZodMode }, { commandPath }] = await Promise.all([import('./contract/zod-mode.js'), import('./commands/known-profile.js')]);
      setZodMode({ path: commandPath(cmd), opts: opts as object });
      // Loaded with the verb, so --version and --help never load the factory's modules.
      const [{ createFactory }, { requireKnownProfile }, verb] = await Promise.all([import('./factory.js'), import('./commands/known-profile.js'), load()]);
      const globals = globalsOf(cmd);
      const jqFilter = (cmd.optsWithGlobals() as { jq?: string }).jq;
      if (jqFilter === undefined) {
        factory = createFactory({ env, globals });
        try {
          await requireKnownProfile(cmd, factory);
          await verb.run(opts, factory);
        } finally {
          await factory.dispose();
        }
        return;
      }
      // --jq implies --json; the output is collected and filtered once the command is done,
      // which a command that runs until stopped never is.
      const path = commandPath(cmd);
      if (UNTIL_STOPPED.has(path) || (path === 'credit-note poll' && (opts as { watch?: boolean }).watch)) {
        throw new UsageError(`--jq filters output once a command is done, and \`svc ${path}${path === 'credit-note poll' ? ' --watch' : ''}\` runs until stopped`, { hint: 'use --json and pipe it to jq' });
      }
      const [{ captureForJq }, { systemStreams }] = await Promise.all([import('./io/jq.js'), import('./io/system-streams.js')]);
      const capture = captureForJq(systemStreams({ env, noColorFlag: !globals.color, noInputFlag: !globals.input, json: true }), jqFilter, env);
      await capture.check();
      factory = createFactory({ env, globals: { ...globals, json: true }, io: capture.io });
      // What the command printed is filtered whether it succeeded or not (a batch that partly
      // failed has results), and it keeps its exit code.
      let failure: { error: unknown } | undefined;
      try {
        await requireKnownProfile(cmd, factory);
        await verb.run(opts, factory);
      } catch (error) {
        failure = { error };
      } finally {
        await factory.dispose();
      }
      await capture.finish(failure !== undefined);
      if (failure) throw failure.error;
    },
  };
  const noColorFlag = argv.includes('--no-color');
  let errColor: boolean | undefined;
  const red = (s: string) => ((errColor ??= colorEnabled({ env, noColorFlag, isTTY: Boolean(process.stderr.isTTY) })) ? `\x1b[31m${s}\x1b[39m` : s);
  // --json: a failure is one JSON object on stderr (docs/interface-decisions.md#json-errors), commander's usage errors included.
  const json = argv.includes('--json') || argv.some((a) => a === '--jq' || a.startsWith('--jq='));
  let usageMessage = '';
  // `svc --help` alone: what it prints is kept for the next run (src/startup/root-help.ts).
  const rootHelp = argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h') ? ((globalThis as Record<symbol, unknown>)[ROOT_HELP_SLOT] as RootHelpSlot | undefined) : undefined;
  let printed = '';
  const output: OutputConfiguration = {
    // Help goes straight to the descriptor, and commander's defaults, which ask process.stdout,
    // are given answers that ask it only of a terminal: see writeToStdout().
    writeOut:
      rootHelp === undefined
        ? writeToStdout
        : (text) => {
            printed += text;
            writeToStdout(text);
          },
    getOutHelpWidth: () => (stdoutIsTerminal() ? process.stdout.columns : 80), // commander's width elsewhere
    // Whether commander keeps colours in help (it has none of its own).
    getOutHasColors: () => stdoutIsTerminal() && colorEnabled({ env, noColorFlag, isTTY: true }),
    writeErr: (s) => {
      guardPipes();
      process.stderr.write(s);
    },
    outputError: (s, write) => {
      if (json) usageMessage += s;
      else write(red(s));
    },
  };
  // A command of one noun defines that noun's commands alone (root.ts).
  const program = buildProgram(ctx, output, nounOf(argv));
  // Before any command runs, whatever it writes to.
  program.hook('preAction', guardPipes);

  if (argv.length === 0) {
    program.outputHelp();
    return ExitCode.ok;
  }
  try {
    await program.parseAsync(helpOnlyForKnownCommands(program, argv), { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' && rootHelp !== undefined && printed !== '') rootHelp.save(printed);
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return ExitCode.ok;
      // Commander has printed its message (unknown option, missing argument, ...), unless --json kept it.
      if (json) writeJsonError({ code: 'usage', message: usageMessage.replace(/^error: /, '').trim() || error.message, hint: 'see --help', exitCode: ExitCode.usage, details: null });
      return ExitCode.usage;
    }
    // Told already in the command's own format (webhook listen's JSON log).
    if (error instanceof ReportedError) return (decided = error.exitCode);
    if (error instanceof JqHaltError) {
      decided = error.exitCode;
      guardPipes();
      process.stderr.write(error.message);
      return error.exitCode;
    }
    // Decided before the message is written: should stderr's reader be gone, the code stays.
    decided = exitCodeOf(error);
    const debug = factory?.debug ?? (argv.includes('--debug') || env.SVC_DEBUG === '1');
    if (json) writeJsonError(errorReport(error));
    else printError(error, red, debug);
    return decided;
  }
}

function writeJsonError(report: ErrorReport): void {
  guardPipes();
  process.stderr.write(`${jsonText({ error: report })}\n`);
}

// Messages quote what the service or a customer's device sent (a product ID, a receipt ID):
// printable() keeps their control characters off the terminal.
function printError(error: unknown, red: (s: string) => string, debug: boolean): void {
  guardPipes();
  // On a terminal, wrapped at words as every note is (the terminal would cut words in two).
  const width = process.stderr.isTTY ? reportedColumns(process.stderr) : undefined;
  const fit = (line: string) => (width === undefined ? line : wrapText(line, width, { hang: '  ' }));
  if (error instanceof SvcError) {
    process.stderr.write(`${fit(`error: ${printable(error.message)}`).replace(/^error:/, red('error:'))}\n`);
    if (error.hint) process.stderr.write(`${fit(`hint: ${printable(error.hint)}`)}\n`);
    if (debug && error.cause instanceof Error) process.stderr.write(`cause: ${printable(error.cause.message)}\n`);
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${red('error:')} unexpected failure: ${printable(message)}\n`);
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  else process.stderr.write('hint: run again with --debug for details\n');
}

/**
 * A reader that stops early (`svc … | head -1`, a pager quit) closes the pipe: that is not
 * svc failing, so it ends quietly, as `gh` does, instead of with Node's EPIPE stack trace;
 * unless a command still at work claimed stdout's closing (src/io/reader-gone.ts), and with
 * the failure's code when one was being reported (`2>&1 | head -1`).
 */
function endQuietlyWhenThePipeCloses(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' && stream === process.stdout && stdoutReaderGone()) return;
    if (error.code === 'EPIPE') process.exit(decided ?? ExitCode.ok);
    throw error;
  });
}

/** The exit code of a failure, once decided: a pipe closed while it is being reported does not turn it into 0. */
let decided: number | undefined;

// process.stdout and process.stderr are streams Node makes on first use; over pipes they are
// sockets, and node:net is loaded for them: about a tenth of `svc --help`. So they are made
// (and guarded) only when a command runs or an error is printed, and help is written to the
// descriptor itself.
let pipesGuarded = false;
function guardPipes(): void {
  if (pipesGuarded) return;
  pipesGuarded = true;
  endQuietlyWhenThePipeCloses(process.stdout);
  endQuietlyWhenThePipeCloses(process.stderr);
}

/** Help and usage text, written whole to fd 1 now; what a full non-blocking pipe refuses goes through process.stdout. */
function writeToStdout(text: string): void {
  const whole = writeToFd1(text, (rest) => {
    guardPipes();
    process.stdout.write(rest);
  });
  if (!whole) process.exit(ExitCode.ok);
}

/** A terminal is a character device: only then is process.stdout asked (and made). */
function stdoutIsTerminal(): boolean {
  try {
    return fstatSync(1).isCharacterDevice() && Boolean(process.stdout.isTTY);
  } catch {
    return false;
  }
}

// No top-level await: the bundle is CommonJS (scripts/build.mjs), which V8 can cache compiled.
void main(process.argv.slice(2), process.env).then((code) => {
  process.exitCode = code;
});
