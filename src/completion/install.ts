// `svc completion install`: the script where the shell looks on a fresh account, with the
// directories made, and for zsh the fpath and compinit lines that make it load. Nothing
// needs root: bash-completion reads ~/.local/share/bash-completion/completions, zsh gets
// ~/.zfunc (its own fpath[1] is often root-owned), fish reads ~/.config/fish/completions.
// A .zshrc that already runs compinit gets the fpath line before it, not a second compinit;
// a bash that does not complete svc once the script is written (no bash-completion package,
// or no ~/.bashrc that loads it) gets a line in ~/.bashrc that sources the script itself (it
// needs nothing but bash). A new shell of the account is asked, before and after.
import { mkdir, readFile, writeFile, appendFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { SvcError } from '../errors.js';
import type { ShellCheck } from './check.js';
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

/** Asks a new shell of the account whether it completes svc (src/completion/check.ts). */
export type CompletionCheck = (shell: Shell) => Promise<ShellCheck>;

/**
 * Writes the script and, once, the startup lines; then asks a new shell whether <Tab>
 * completes svc, and for bash adds the line that sources the script when it does not (no
 * bash-completion package, whatever ~/.bashrc says). Returns what it did, in words; throws
 * when completion still does not work.
 */
export async function install(plan: InstallPlan, script: string, check: CompletionCheck): Promise<string[]> {
  const done: string[] = [];
  await mkdir(dirname(plan.file), { recursive: true });
  // Said as it is: a second install finds the same script there and changes nothing.
  if ((await readText(plan.file)) === script) done.push(`${plan.file} is up to date`);
  else {
    await writeFile(plan.file, script);
    done.push(`wrote ${plan.file}`);
  }
  if (plan.rc) done.push(await addZshLines(plan.rc.file, plan.rc.lines));
  let checked = await check(plan.shell);
  if (plan.bashrc && !(checked.ran && checked.works)) {
    const current = await readText(plan.bashrc.file);
    if (current.includes(MARK)) done.push(`${plan.bashrc.file} already loads it`);
    else if (checked.ran || !(await loadsBashCompletion(plan.bashrc.loaders))) {
      await appendFile(plan.bashrc.file, `${separator(current)}${MARK}\n[ -r ${plan.file} ] && . ${plan.file}\n`);
      done.push(`bash-completion is not loaded by ${plan.bashrc.file}: added a line there that loads the script`);
      if (checked.ran) checked = await check(plan.shell);
    }
  }
  if (!checked.ran) {
    done.push(`could not check it (${checked.reason}); open a new ${plan.shell} and try svc <Tab>`);
    return done;
  }
  if (!checked.works) {
    throw new SvcError(`wrote ${plan.file}, but a new ${plan.shell} still does not complete svc`, { hint: MANUAL[plan.shell] });
  }
  done.push(`checked in a new ${plan.shell}: svc<Tab> completes; open a new ${plan.shell} (or a new terminal) to use it`);
  return done;
}

/** The line that works whatever else the shell loads (gh's `eval "$(gh completion -s bash)"`). */
const MANUAL: Record<Shell, string> = {
  bash: 'add this line to ~/.bashrc: eval "$(svc completion bash)"',
  zsh: 'add these lines to ~/.zshrc, before any compinit: fpath=(~/.zfunc $fpath); autoload -Uz compinit && compinit',
  fish: 'run: svc completion fish | source  (or add it to ~/.config/fish/config.fish)',
};

/** Without a shell to ask: whether a startup file names bash-completion. */
async function loadsBashCompletion(loaders: readonly string[]): Promise<boolean> {
  const loaded = await Promise.all(loaders.map(async (file) => /^[^#\n]*bash_completion/m.test(await readText(file))));
  return loaded.some(Boolean);
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
