// `svc completion install`: the script where the shell looks on a fresh account, with the
// directories made, and for zsh the fpath and compinit lines that make it load. Nothing
// needs root: bash-completion reads ~/.local/share/bash-completion/completions, zsh gets
// ~/.zfunc (its own fpath[1] is often root-owned), fish reads ~/.config/fish/completions.
import { mkdir, readFile, writeFile, appendFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Shell } from './generate.js';

export interface InstallPlan {
  shell: Shell;
  file: string;
  /** A startup file and the lines added to it, when the shell needs them. */
  rc?: { file: string; lines: readonly string[] };
}

export function installPlan(shell: Shell, env: NodeJS.ProcessEnv): InstallPlan {
  const home = env.HOME ?? homedir();
  switch (shell) {
    case 'bash':
      return { shell, file: join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'bash-completion', 'completions', 'svc') };
    case 'fish':
      return { shell, file: join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'fish', 'completions', 'svc.fish') };
    case 'zsh': {
      const zdot = env.ZDOTDIR ?? home;
      return {
        shell,
        file: join(home, '.zfunc', '_svc'),
        rc: { file: join(zdot, '.zshrc'), lines: ['# svc completion (svc completion install)', 'fpath=(~/.zfunc $fpath)', 'autoload -Uz compinit && compinit'] },
      };
    }
  }
}

/** Writes the script and, once, the startup lines; returns what it changed, in words. */
export async function install(plan: InstallPlan, script: string): Promise<string[]> {
  const done: string[] = [];
  await mkdir(dirname(plan.file), { recursive: true });
  await writeFile(plan.file, script);
  done.push(`wrote ${plan.file}`);
  if (plan.rc) {
    let current = '';
    try {
      current = await readFile(plan.rc.file, 'utf8');
    } catch {
      // No startup file yet: it is created.
    }
    if (current.includes('fpath=(~/.zfunc')) {
      done.push(`${plan.rc.file} already loads ~/.zfunc`);
    } else {
      await appendFile(plan.rc.file, `${current === '' || current.endsWith('\n') ? '' : '\n'}${plan.rc.lines.join('\n')}\n`);
      done.push(`added fpath and compinit to ${plan.rc.file}`);
    }
  }
  return done;
}

export function shellFromEnv(env: NodeJS.ProcessEnv): Shell | undefined {
  const name = (env.SHELL ?? '').split('/').pop();
  return name === 'bash' || name === 'zsh' || name === 'fish' ? name : undefined;
}
