// `svc completion install`: the script where the shell looks on a fresh account, with the
// directories made, and for zsh the fpath and compinit lines that make it load. Nothing
// needs root: bash-completion reads ~/.local/share/bash-completion/completions, zsh gets
// ~/.zfunc (its own fpath[1] is often root-owned), fish reads ~/.config/fish/completions.
// A .zshrc that already runs compinit gets the fpath line before it, not a second compinit;
// a bash that loads no bash-completion (no ~/.bashrc from /etc/skel, say) gets a line in
// ~/.bashrc that sources the script itself (it needs nothing but bash).
import { mkdir, readFile, writeFile, appendFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Shell } from './generate.js';

export interface InstallPlan {
  shell: Shell;
  file: string;
  /** A startup file and the lines added to it, when the shell needs them. */
  rc?: { file: string; lines: readonly string[] };
  /** bash: ~/.bashrc, and the startup files that may load bash-completion. */
  bashrc?: { file: string; loaders: readonly string[] };
}

const MARK = '# svc completion (svc completion install)';

export function installPlan(shell: Shell, env: NodeJS.ProcessEnv): InstallPlan {
  const home = env.HOME ?? homedir();
  switch (shell) {
    case 'bash': {
      const bashrc = join(home, '.bashrc');
      return { shell, file: join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'bash-completion', 'completions', 'svc'), bashrc: { file: bashrc, loaders: [bashrc, '/etc/bash.bashrc'] } };
    }
    case 'fish':
      return { shell, file: join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'fish', 'completions', 'svc.fish') };
    case 'zsh': {
      const zdot = env.ZDOTDIR ?? home;
      return {
        shell,
        file: join(home, '.zfunc', '_svc'),
        rc: { file: join(zdot, '.zshrc'), lines: [MARK, 'fpath=(~/.zfunc $fpath)', 'autoload -Uz compinit && compinit'] },
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
  if (plan.rc) done.push(await addZshLines(plan.rc.file, plan.rc.lines));
  if (plan.bashrc) {
    const loaded = await Promise.all(plan.bashrc.loaders.map(async (file) => /^[^#\n]*bash_completion/m.test(await readText(file))));
    const current = await readText(plan.bashrc.file);
    if (current.includes(MARK)) done.push(`${plan.bashrc.file} already loads it`);
    else if (!loaded.some(Boolean)) {
      await appendFile(plan.bashrc.file, `${separator(current)}${MARK}\n[ -r ${plan.file} ] && . ${plan.file}\n`);
      done.push(`bash-completion is not loaded by ${plan.bashrc.file}: added a line there that loads the script`);
    }
  }
  return done;
}

/** fpath before the .zshrc's own compinit if it has one, else fpath and compinit at its end. */
async function addZshLines(file: string, lines: readonly string[]): Promise<string> {
  const current = await readText(file);
  if (current.includes('fpath=(~/.zfunc')) return `${file} already loads ~/.zfunc`;
  const compinit = /^[^#\n]*\bcompinit\b/m.exec(current);
  if (compinit) {
    const fpath = lines.filter((l) => !/\bcompinit\b/.test(l));
    await writeFile(file, `${current.slice(0, compinit.index)}${fpath.join('\n')}\n${current.slice(compinit.index)}`);
    return `added fpath to ${file}, before its compinit`;
  }
  await appendFile(file, `${separator(current)}${lines.join('\n')}\n`);
  return `added fpath and compinit to ${file}`;
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    // No such file yet: nothing in it.
    return '';
  }
}

function separator(text: string): string {
  return text === '' || text.endsWith('\n') ? '' : '\n';
}

export function shellFromEnv(env: NodeJS.ProcessEnv): Shell | undefined {
  const name = (env.SHELL ?? '').split('/').pop();
  return name === 'bash' || name === 'zsh' || name === 'fish' ? name : undefined;
}
