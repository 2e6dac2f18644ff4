import type { Command, OutputConfiguration } from 'commander';
import type { CommandContext } from '../context.js';

/** How the demo builds a fresh command tree per step (passed in: importing root.ts from a verb would pull the tree out of the entry chunk). */
export type BuildProgram = (ctx: CommandContext, output?: OutputConfiguration) => Command;

export function registerDemo(program: Command, ctx: CommandContext, buildProgram: BuildProgram): void {
  program
    .command('demo')
    .description('the whole merchant flow, step by step, on an embedded sandbox')
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./run.js'), { buildProgram }));
}
