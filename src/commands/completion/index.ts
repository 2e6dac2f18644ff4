import { Argument, type Command } from 'commander';
import type { CommandContext } from '../context.js';
import { notYet } from '../not-yet.js';

export function registerCompletion(program: Command, ctx: CommandContext): void {
  program
    .command('completion')
    .description('print the shell completion script')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .addHelpText('after', '\nInstall:\n  bash: svc completion bash > ~/.local/share/bash-completion/completions/svc\n  zsh:  svc completion zsh > "${fpath[1]}/_svc"\n  fish: svc completion fish > ~/.config/fish/completions/svc.fish')
    .action((shell: 'bash' | 'zsh' | 'fish', _flags, cmd: Command) => ctx.run(cmd, notYet('completion'), { shell }));
}
