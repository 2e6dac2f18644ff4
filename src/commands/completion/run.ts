import type { Command } from 'commander';
import { generators, type Shell } from '../../completion/generate.js';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { note } from '../../io/streams.js';

export interface CompletionOptions {
  /** A shell prints its script; `install` puts it where the shell looks. */
  shell: Shell | 'install';
  /** With install: the shell to install for (default: $SHELL's). */
  for?: string | undefined;
  /** The root of the tree to describe: the one being run, so the script cannot disagree with it. */
  program: Command;
}

export async function run(opts: CompletionOptions, f: Factory): Promise<void> {
  if (opts.shell !== 'install') return void f.io.stdout.write(generators[opts.shell](opts.program));
  const [{ install, installPlan, shellFromEnv }, { completesInNewShell }] = await Promise.all([
    import('../../completion/install.js'),
    import('../../completion/check.js'),
  ]);
  const shell = opts.for ?? shellFromEnv(f.env);
  if (shell !== 'bash' && shell !== 'zsh' && shell !== 'fish') {
    throw new UsageError(`--shell: ${shell === undefined ? 'cannot tell the shell from $SHELL' : `"${shell}" is not bash, zsh or fish`}`, { hint: 'e.g. svc completion install --shell zsh' });
  }
  const check = (s: Shell) => completesInNewShell(s, { ...f.env });
  for (const line of await install(installPlan(shell, f.env), generators[shell](opts.program), check)) note(f.io, line);
}
