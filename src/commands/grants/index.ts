import type { Command } from 'commander';
import type { CommandContext } from '../context.js';

export function registerGrants(program: Command, ctx: CommandContext): void {
  const grants = program.command('grants').description('Grants: the companies that approved this integration');
  grants
    .command('list')
    .description('list the Grants of the profile')
    .option('--details', 'fetch stores and scopes of each Grant from the service')
    .action((flags: { details?: boolean }, cmd: Command) =>
      ctx.run(cmd, () => import('./list.js'), { details: Boolean(flags.details) }),
    );
  grants
    .command('show')
    .description('show one Grant with its stores')
    .argument('<grant-id>')
    .action((grantId: string, _flags, cmd: Command) => ctx.run(cmd, () => import('./show.js'), { grantId }));
  grants
    .command('use')
    .description('make a Grant the default of the profile')
    .argument('<grant-id>')
    .action((grantId: string, _flags, cmd: Command) => ctx.run(cmd, () => import('./use.js'), { grantId }));
}
