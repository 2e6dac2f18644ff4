import { Argument, type Command } from 'commander';
import type { Shell } from '../../completion/generate.js';
import type { CommandContext } from '../context.js';
import { wrappedHelpText } from '../../help/layout.js';

export function registerCompletion(program: Command, ctx: CommandContext): void {
  program
    .command('completion')
    .description('print the shell completion script, or install it where your shell looks')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish; or install').choices(['bash', 'zsh', 'fish', 'install']))
    .addArgument(new Argument('[install-shell]', 'with install: bash, zsh or fish (default: that of $SHELL)').choices(['bash', 'zsh', 'fish']))
    .option('--shell <name>', 'with install: bash, zsh or fish (the same as `svc completion install zsh`)')
    .addHelpText(
      'after',
      wrappedHelpText([
        '',
        'By hand, on a fresh account:',
        '  bash: mkdir -p ~/.local/share/bash-completion/completions && svc completion bash > ~/.local/share/bash-completion/completions/svc',
        '  zsh:  mkdir -p ~/.zfunc && svc completion zsh > ~/.zfunc/_svc',
        "        and in ~/.zshrc, before any compinit: fpath=(~/.zfunc $fpath); autoload -Uz compinit && compinit",
        '  fish: mkdir -p ~/.config/fish/completions && svc completion fish > ~/.config/fish/completions/svc.fish',
      ].join('\n'), '          '),
    )
    .action((shell: Shell | 'install', installShell: Shell | undefined, flags: { shell?: string }, cmd: Command) => {
      if (installShell !== undefined && shell !== 'install') cmd.error(`error: a second shell goes only with install: \`svc completion install ${installShell}\``, { code: 'svc.usage', exitCode: 2 });
      // The verb is handed the tree: importing root.ts from the verb's chunk would make esbuild
      // move commander and the whole tree out of the entry chunk into a shared one.
      return ctx.run(cmd, () => import('./run.js'), { shell, for: flags.shell ?? installShell, program });
    });
}
