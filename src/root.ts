// The command tree. Only definitions live here and in each noun's index: flags, arguments
// and help. A verb's module, and whatever heavy dependency it needs, is imported when the
// verb runs, so `svc --help` parses none of them.
import { registerHelp } from './help/command.js';
import { helpLayout, readsEnv } from './help/layout.js';
import { polishHelp } from './help/polish.js';
import { Command, Option, type OutputConfiguration } from 'commander';
import type { CommandContext } from './commands/context.js';
import { registerCompletion } from './commands/completion/index.js';
import { registerConfig } from './commands/config/index.js';
import { registerCreditNote } from './commands/credit-note/index.js';
import { registerDb } from './commands/db/index.js';
import { registerApi } from './commands/api/index.js';
import { registerAuth } from './commands/auth/index.js';
import { registerDemo } from './commands/demo/index.js';
import { registerGrants } from './commands/grants/index.js';
import { registerKeys } from './commands/keys/index.js';
import { registerReceipt } from './commands/receipt/index.js';
import { registerRecipient } from './commands/recipient/index.js';
import { registerSandbox } from './commands/sandbox/index.js';
import { registerToken } from './commands/token/index.js';
import { registerWebhook } from './commands/webhook/index.js';
import { VERSION } from './version.js';

/** Each noun and what defines its commands, in the order `svc --help` lists them (under the headings ROOT_GROUPS gives, help/polish.ts). */
const NOUNS: readonly (readonly [string, (program: Command, ctx: CommandContext) => void])[] = [
  ['receipt', registerReceipt],
  ['credit-note', registerCreditNote],
  ['recipient', registerRecipient],
  ['webhook', registerWebhook],
  ['auth', registerAuth],
  ['grants', registerGrants],
  ['token', registerToken],
  ['keys', registerKeys],
  ['sandbox', registerSandbox],
  ['config', registerConfig],
  ['db', registerDb],
  ['api', registerApi],
  ['completion', registerCompletion],
];

/** Nouns whose commands read the whole tree: completion writes a script of every command. */
const WHOLE_TREE = new Set(['completion']);

/** Global options that take a value: the word after one is its value, not a command. */
const VALUED_GLOBALS = new Set(['--profile', '--base-url', '--jq']);

/**
 * The noun a command line runs (`svc --profile p sandbox outbox` runs sandbox), when it is one
 * whose commands alone need defining; undefined for help, the demo, completion (its scripts and
 * its questions), a
 * word that is no noun (commander then suggests one from all of them), or none.
 */
export function nounOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--') return undefined;
    if (VALUED_GLOBALS.has(word)) i++;
    else if (!word.startsWith('-')) return NOUNS.some(([noun]) => noun === word) && !WHOLE_TREE.has(word) ? word : undefined;
  }
  return undefined;
}

/**
 * Parse errors throw (exitOverride) instead of exiting, at every depth: commander copies
 * these settings into each subcommand created after them, so they come first. With `only`
 * (a noun: nounOf), the tree has that noun's commands alone: a command of one noun does not
 * define the other thirteen's (about 7 ms of every start-up); help, the demo, the reference
 * and completion build it whole.
 */
export function buildProgram(ctx: CommandContext, output?: OutputConfiguration, only?: string): Command {
  const program = new Command('svc').exitOverride();
  if (output) program.configureOutput(output);
  program
    .description('Receipts, credit notes, returns and webhooks from the merchant side, in a terminal and in CI.')
    .version(VERSION, '-v, --version', 'print the version')
    .addOption(readsEnv(new Option('--profile <name>', 'config profile (default: local, the embedded sandbox)'), 'SVC_PROFILE'))
    .addOption(readsEnv(new Option('--base-url <url>', "service address, overriding the profile's"), 'SVC_BASE_URL'))
    .option('--json', 'machine output on stdout; human text goes to stderr')
    .option('--jq <expr>', 'filter the JSON output with jq (implies --json)')
    .addOption(readsEnv(new Option('--no-input', 'never prompt (also when stdin is not a terminal)'), 'CI=true'))
    .addOption(readsEnv(new Option('--debug', 'HTTP trace on stderr, secrets redacted'), 'SVC_DEBUG=1'))
    .addOption(readsEnv(new Option('--no-color', 'no colours'), 'NO_COLOR'))
    .helpCommand(false)
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false, ...helpLayout });

  for (const [noun, register] of NOUNS) if (only === undefined || only === noun) register(program, ctx);
  if (only !== undefined) {
    polishHelp(program);
    return program;
  }
  registerDemo(program, ctx, buildProgram);
  registerHelp(program);
  // What the completion scripts ask for flag values and arguments (src/commands/complete.ts).
  program
    .command('__complete', { hidden: true })
    .argument('[words...]')
    .action((words: string[], _flags, cmd: Command) => ctx.run(cmd, () => import('./commands/complete.js'), { words }));
  polishHelp(program);
  return program;
}

/**
 * The command line as commander should see it: `--help` after a word that names no command
 * (`svc receipt show X --help`) would print the parent's help and exit 0, as if `show` were
 * something it holds; without the help flag, commander says `unknown command 'show'` (with
 * the nearest name) and exits 2, as gh does. Walks the tree along the words: an option's value
 * is passed over, and a command with an action of its own takes operands, so the walk ends there.
 */
export function helpOnlyForKnownCommands(program: Command, argv: readonly string[]): string[] {
  let cmd = program;
  const valued = new Set<string>();
  const takeValuesOf = (c: Command) => {
    for (const option of c.options) if (option.required || option.optional) for (const flag of [option.long, option.short]) if (flag) valued.add(flag);
  };
  takeValuesOf(cmd);
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--') break;
    if (word.startsWith('-')) {
      if (!word.includes('=') && valued.has(word)) i++;
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) {
      cmd = sub;
      takeValuesOf(cmd);
      continue;
    }
    // An operand of a command that has subcommands and no action: no command of that name.
    const hasAction = (cmd as unknown as { _actionHandler?: unknown })._actionHandler != null;
    if (cmd.commands.length > 0 && !hasAction) return argv.filter((w, k) => k <= i || (w !== '--help' && w !== '-h'));
    break;
  }
  return [...argv];
}
