import type { Command } from 'commander';
import type { CommandContext } from '../context.js';
import { grantFlag } from '../grant-flag.js';

export function registerToken(program: Command, ctx: CommandContext): void {
  const token = program.command('token').description("access tokens, kept in the profile's private token file and renewed on use");
  token
    .command('get')
    .description('print a valid access token for a Grant (the bare token, or --json)')
    .addOption(grantFlag())
    .option('--scope <scope>', 'scope to request (default: write_receipts)')
    .option('--force', 'ignore the cache and request a new token')
    .action((flags: { grant?: string; scope?: string; force?: boolean }, cmd: Command) =>
      ctx.run(cmd, () => import('./get.js'), { grant: flags.grant, scope: flags.scope, force: Boolean(flags.force) }),
    );
  token
    .command('validate')
    .description('ask the service whether a token is valid (default: SVC_TOKEN, else the cached one); exit 4 when it is not')
    .argument('[token]', 'token to check; prefer stdin (-) so it stays out of the process list')
    // A token may begin with '-' (base64url): taken as the token, never echoed back in an
    // "unknown option" error.
    .allowUnknownOption()
    .action((value: string | undefined, _flags, cmd: Command) => ctx.run(cmd, () => import('./validate.js'), { token: value }));
}
