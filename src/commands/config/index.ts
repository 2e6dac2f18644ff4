import type { Command } from 'commander';
import type { CommandContext } from '../context.js';

export function registerConfig(program: Command, ctx: CommandContext): void {
  const config = program
    .command('config')
    .description('read and change the settings of a profile (secrets live in the secret store, not here)');
  config
    .command('list')
    .description('show every setting of the profile with where its value comes from')
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./list.js'), {}));
  config
    .command('get')
    .description('print one setting')
    .argument('<key>', 'base-url, client-id, redirect-uri, grant or scopes')
    .action((key: string, _flags, cmd: Command) => ctx.run(cmd, () => import('./get.js'), { key }));
  config
    .command('set')
    .description('store a setting in the profile')
    .argument('<key>', 'base-url, client-id, redirect-uri, grant or scopes')
    .argument('<value>')
    .action((key: string, value: string, _flags, cmd: Command) => ctx.run(cmd, () => import('./set.js'), { key, value }));
  config
    .command('unset')
    .description('remove a setting from the profile')
    .argument('<key>')
    .action((key: string, _flags, cmd: Command) => ctx.run(cmd, () => import('./unset.js'), { key }));
}
