import { Option, type Command } from 'commander';
import type { CommandContext } from '../context.js';

export function registerGrants(program: Command, ctx: CommandContext): void {
  const grants = program.command('grants').description('Grants: the companies that approved this integration');
  grants
    .command('list')
    .description('list the Grants of the profile')
    .option('--details', 'fetch stores and scopes of each Grant from the service')
    .option('--all-grants', 'with --details: every Grant of the profile (the default)')
    .option('--grants <file>', 'with --details: the Grants named in a file, one selector per line (- for stdin)')
    .option('--concurrency <n>', 'Grants fetched at once with --details (default 16)')
    .option('--filter <text>', 'only the companies whose name, tax ID or Grant ID contains TEXT (any case), counted')
    // --grant picks the one company a command acts for; here it says to use --filter.
    .addOption(new Option('--grant <selector>').hideHelp())
    .action((flags: { details?: boolean; allGrants?: boolean; grants?: string; concurrency?: string; filter?: string; grant?: string }, cmd: Command) =>
      ctx.run(cmd, () => import('./list.js'), { ...flags, details: Boolean(flags.details) }),
    );
  grants
    .command('show')
    .description('show one Grant with its stores')
    .argument('<grant-id>')
    .action((grantId: string, _flags, cmd: Command) => ctx.run(cmd, () => import('./show.js'), { grantId }));
  grants
    .command('use')
    .description('make a Grant the default of the profile (a Grant ID or prefix, a tax ID, or part of the company name)')
    .argument('<grant-id>')
    .action((grantId: string, _flags, cmd: Command) => ctx.run(cmd, () => import('./use.js'), { grantId }));
}
