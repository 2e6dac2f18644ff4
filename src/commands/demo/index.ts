import type { Command } from 'commander';
import type { CommandContext } from '../context.js';

export function registerDemo(program: Command, ctx: CommandContext): void {
  program
    .command('demo')
    .description('the whole merchant flow, step by step, on an embedded sandbox')
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./run.js'), {}));
}
