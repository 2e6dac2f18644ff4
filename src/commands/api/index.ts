import { Argument, type Command } from 'commander';
import { OPERATION_PATHS } from '../../contract/operation-paths.js';
import { collect } from '../../completion/values.js';
import type { CommandContext } from '../context.js';
import { grantFlag } from '../grant-flag.js';

/** Offered by shell completion, not enforced: any path (with real IDs) is accepted. */
function completedWith(argument: Argument, values: readonly string[]): Argument {
  argument.argChoices = [...values];
  return argument;
}

export function registerApi(program: Command, ctx: CommandContext): void {
  program
    .command('api')
    .description("call any operation of the service with the profile's base URL and credentials (like `gh api`)")
    .addArgument(completedWith(new Argument('<method>', 'GET, POST, PUT, PATCH or DELETE'), ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']))
    .addArgument(completedWith(new Argument('<path>', "the operation's path, e.g. /credit-note or /recipient/resolve"), OPERATION_PATHS))
    .option('-F, --field <key=value>', 'a parameter; true, false, null and numbers are typed (repeatable): query for GET/DELETE, JSON body otherwise', collect)
    .option('-f, --raw-field <key=value>', 'a string parameter (repeatable)', collect)
    .option('--input <file>', 'the request body from a JSON file, or - for stdin')
    .option('-H, --header <name:value>', 'an extra request header (repeatable)', collect)
    .option('-i, --include', 'print the status line and the response headers before the body')
    .addOption(grantFlag())
    .action((method: string, path: string, flags: { field?: string[]; rawField?: string[]; input?: string; header?: string[]; include?: boolean }, cmd: Command) =>
      ctx.run(cmd, () => import('./api.js'), { method, path, ...flags }),
    );
}
