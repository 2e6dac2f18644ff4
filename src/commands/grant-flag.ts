// `--grant SELECTOR` on every verb that acts for a company: it reaches the factory's settings
// as a global (context.ts's globalsOf), so every token the verb asks for is that company's.
import { Option, type Command } from 'commander';
import { readsEnv } from '../help/layout.js';

const GRANT_FLAG_HELP = "the company to act for: a Grant ID or 6+ of its characters, a tax ID, or part of the company's name (default: the profile's Grant)";

export function grantOption(cmd: Command): Command {
  return cmd.addOption(grantFlag());
}

/** `--grant SELECTOR`, SVC_GRANT_ID when it is not given (src/config/settings.ts). */
export function grantFlag(): Option {
  return readsEnv(new Option('--grant <selector>', GRANT_FLAG_HELP), 'SVC_GRANT_ID');
}

/** `--grant SELECTOR` on a list of this machine's records (receipts, credit notes): one company's rows; every company's without it (not SVC_GRANT_ID's). */
export function listGrantOption(cmd: Command): Command {
  return cmd.option('--grant <selector>', "only this company's: a Grant ID or 6+ of its characters, a tax ID, or part of the company's name (default: every company's)");
}

/** `--all-grants`, `--grants FILE|-` and `--concurrency N` of a verb that can act for many companies at once (src/grants/fan-out.ts). */
export function fanOutOptions(cmd: Command): Command {
  return cmd
    .option('--all-grants', 'act for every company of the profile at once (partly failed: exit 9)')
    .option('--grants <file>', 'act for the companies named in a file, one selector per line (- for stdin)')
    .option('--concurrency <n>', 'companies at once with --all-grants or --grants (default 16)');
}
