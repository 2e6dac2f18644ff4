import { Option, type Command } from 'commander';
import { readsEnv } from '../../help/layout.js';
import type { CommandContext } from '../context.js';

export function registerAuth(program: Command, ctx: CommandContext): void {
  const auth = program.command('auth').description('log in with OAuth and manage stored credentials');
  auth
    .command('login')
    .description('authorize this integration for companies in the browser (PKCE, loopback callback)')
    .option('--flow <flow>', 'grant (client credentials per Grant) or code (access and refresh tokens)', 'grant')
    .option('--scopes <scopes>', 'space-separated scopes to request')
    .addOption(readsEnv(new Option('--client-id <id>', 'client ID of the integration'), 'SVC_CLIENT_ID'))
    .option('--client-secret-stdin', 'read the client secret from stdin')
    .option('--no-browser', 'print the URL instead of opening a browser')
    .option('--port <n>', 'loopback callback port (default: the redirect URI\'s)')
    .option('--timeout <seconds>', 'how long to wait for the approval', '300')
    .action(
      (
        flags: { flow: string; scopes?: string; clientId?: string; clientSecretStdin?: boolean; browser: boolean; port?: string; timeout: string },
        cmd: Command,
      ) => ctx.run(cmd, () => import('./login.js'), flags),
    );
  auth
    .command('status')
    .description('which profile, client, secret backend, Grants and tokens are in use (never the values)')
    .option('--check', 'also ask the service; exit non-zero, naming why, when the profile cannot work')
    .action((flags: { check?: boolean }, cmd: Command) => ctx.run(cmd, () => import('./status.js'), { check: Boolean(flags.check) }));
  auth
    .command('set-secret')
    .description("store the profile's client secret in the secret store (OS keychain), without echoing it")
    .option('--stdin', 'read the secret from stdin (the default when stdin is not a terminal)')
    .action((flags: { stdin?: boolean }, cmd: Command) =>
      ctx.run(cmd, () => import('./set-secret.js'), { stdin: Boolean(flags.stdin) }),
    );
  auth
    .command('logout')
    .description('forget the tokens and client secret of the profile')
    .option('--all', 'every profile')
    .action((flags: { all?: boolean }, cmd: Command) => ctx.run(cmd, () => import('./logout.js'), { all: Boolean(flags.all) }));
  auth
    .command('refresh')
    .description('renew the access tokens now')
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./refresh.js'), {}));
}
