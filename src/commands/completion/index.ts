import { Argument, type Command } from 'commander';
import type { Shell } from '../../completion/generate.js';
import type { CommandContext } from '../context.js';

export function registerCompletion(program: Command, ctx: CommandContext): void {
  program
    .command('completion')
    .description('print the shell completion script')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .addHelpText('after', '\nInstall:\n  bash: svc completion bash > ~/.local/share/bash-completion/completions/svc\n  zsh:  svc completion zsh > "${fpath[1]}/_svc"\n  fish: svc completion fish > ~/.config/fish/completions/svc.fish')
    .action((shell: Shell, _flags, cmd: Command) =>
      // The verb is handed the tree: importing root.ts from the verb's chunk would make esbuild
      // move commander and the whole tree out of the entry chunk into a shared one.
      ctx.run(cmd, () => import('./run.js'), { shell, program }),
    );
}
