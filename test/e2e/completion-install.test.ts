// `svc completion install` on a fresh account, then a real interactive shell in a real
// terminal (tmux): <Tab> completes a command, and a live value (a profile from config).
import { existsSync } from 'node:fs';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSvcHome, runSvc, svcBin, tempDirs } from './helpers.js';
import { tmux } from './tmux.js';
import { requireTools } from './require-tools.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

async function account(): Promise<{ home: string; env: Record<string, string>; bin: string }> {
  const home = await dirs.make('svc-account-');
  const svcHome = await makeSvcHome(dirs);
  const bin = await dirs.make('svc-install-bin-');
  await writeFile(join(bin, 'svc'), `#!/bin/sh\nexec node ${svcBin} "$@"\n`);
  await chmod(join(bin, 'svc'), 0o755);
  const env = { HOME: home, PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`, SVC_CONFIG_DIR: svcHome.configDir, SVC_STATE_DIR: svcHome.stateDir, TERM: 'xterm' };
  const set = await runSvc(['config', 'set', 'base-url', 'https://api.example.com', '--profile', 'production'], { home: svcHome });
  expect(set.exitCode, set.stderr).toBe(0);
  return { home, env, bin };
}

/** Types `line` and a Tab (twice for a list) in SHELL under tmux; returns the screen. */
async function tabIn(shell: string, env: Record<string, string>, line: string): Promise<string> {
  const session = `svc-tab-${shell}-${process.pid}`;
  const exports = Object.entries(env).map(([k, v]) => `${k}='${v}'`).join(' ');
  tmux(['new-session', '-d', '-s', session, '-x', '150', '-y', '30', `env -i ${exports} ${shell}`]);
  try {
    await new Promise((r) => setTimeout(r, 1500));
    tmux(['send-keys', '-t', session, line, 'Tab']);
    await new Promise((r) => setTimeout(r, 1500));
    tmux(['send-keys', '-t', session, 'Tab']);
    await new Promise((r) => setTimeout(r, 1000));
    return tmux(['capture-pane', '-p', '-t', session]);
  } finally {
    tmux(['kill-session', '-t', session]);
  }
}

describe('svc completion install', () => {
  it('zsh: writes ~/.zfunc/_svc and the fpath + compinit lines once; Tab then completes commands and profiles', async (ctx) => {
    const missing = requireTools(['tmux', 'zsh']);
    if (missing) return ctx.skip(missing);
    const { home, env } = await account();
    for (let i = 0; i < 2; i++) {
      const r = await runSvc(['completion', 'install', '--shell', 'zsh'], { env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/checked in a new zsh: svc<Tab> completes/);
    }
    const rc = await readFile(join(home, '.zshrc'), 'utf8');
    expect(rc.match(/fpath=\(~\/\.zfunc \$fpath\)/g)).toHaveLength(1);
    expect(await readFile(join(home, '.zfunc', '_svc'), 'utf8')).toContain('#compdef svc');
    expect(await tabIn('zsh', env, 'svc credit-note po')).toContain('svc credit-note poll');
    expect(await tabIn('zsh', env, 'svc --profile prod')).toContain('svc --profile production');
  }, 60_000);

  it('zsh with a .zshrc that runs compinit already: fpath goes before it, no second compinit', async (ctx) => {
    const missing = requireTools(['tmux', 'zsh']);
    if (missing) return ctx.skip(missing);
    const { home, env } = await account();
    await writeFile(join(home, '.zshrc'), 'export EDITOR=vi\nautoload -Uz compinit\ncompinit\nbindkey -e\n');
    const r = await runSvc(['completion', 'install', 'zsh'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const rc = await readFile(join(home, '.zshrc'), 'utf8');
    expect(rc.match(/^[^#\n]*\bcompinit\b/gm)).toEqual(['autoload -Uz compinit', 'compinit']);
    expect(rc.indexOf('fpath=(~/.zfunc $fpath)')).toBeLessThan(rc.indexOf('autoload -Uz compinit'));
    expect(await tabIn('zsh', env, 'svc credit-note po')).toContain('svc credit-note poll');
  }, 60_000);

  it('bash on an account with no ~/.bashrc (so no bash-completion): a line in ~/.bashrc loads the script; Tab completes', async (ctx) => {
    const missing = requireTools(['tmux', 'bash']);
    if (missing) return ctx.skip(missing);
    const { home, env } = await account();
    for (let i = 0; i < 2; i++) expect((await runSvc(['completion', 'install', 'bash'], { env })).exitCode).toBe(0);
    const rc = await readFile(join(home, '.bashrc'), 'utf8');
    expect(rc.match(/bash-completion\/completions\/svc \]/g)).toHaveLength(1);
    expect(await tabIn('bash -i', env, 'svc credit-note po')).toContain('svc credit-note poll');
    expect(await tabIn('bash -i', env, 'svc --profile prod')).toContain('svc --profile production');
  }, 60_000);

  it('bash with the .bashrc of /etc/skel but no bash-completion package: install checks in bash, adds the line, and Tab completes', async (ctx) => {
    const missing = requireTools(['tmux', 'bash']);
    if (missing) return ctx.skip(missing);
    const { home, env } = await account();
    // /etc/skel's lines, with the package's files where this machine has none.
    const skel = `if ! shopt -oq posix; then\n  if [ -f ${home}/no-package/bash_completion ]; then\n    . ${home}/no-package/bash_completion\n  elif [ -f ${home}/no-package/etc/bash_completion ]; then\n    . ${home}/no-package/etc/bash_completion\n  fi\nfi\n`;
    await writeFile(join(home, '.bashrc'), skel);
    const r = await runSvc(['completion', 'install', 'bash'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/checked in a new bash: svc<Tab> completes/);
    expect(await tabIn('bash -i', env, 'svc credit-note po')).toContain('svc credit-note poll');
    const again = await runSvc(['completion', 'install', 'bash'], { env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect((await readFile(join(home, '.bashrc'), 'utf8')).match(/bash-completion\/completions\/svc \]/g)).toHaveLength(1);
  }, 60_000);

  it('bash with bash-completion loaded: the script in its user directory is enough, checked, ~/.bashrc untouched', async (ctx) => {
    const missing = requireTools(['tmux', 'bash']) ?? (existsSync('/usr/share/bash-completion/bash_completion') ? undefined : 'bash-completion is not installed');
    if (missing) return ctx.skip(missing);
    const { home, env } = await account();
    const rc = 'if [ -f /usr/share/bash-completion/bash_completion ]; then\n  . /usr/share/bash-completion/bash_completion\nfi\n';
    await writeFile(join(home, '.bashrc'), rc);
    const r = await runSvc(['completion', 'install', 'bash'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/checked in a new bash: svc<Tab> completes/);
    expect(await readFile(join(home, '.bashrc'), 'utf8')).toBe(rc);
    expect(await tabIn('bash -i', env, 'svc credit-note po')).toContain('svc credit-note poll');
  }, 60_000);

  it('bash and fish: the script where each looks on a fresh account, directories made', async (ctx) => {
    const missing = requireTools(['tmux', 'fish']);
    if (missing) return ctx.skip(missing);
    const { home, env } = await account();
    expect((await runSvc(['completion', 'install', '--shell', 'bash'], { env })).exitCode).toBe(0);
    expect(await readFile(join(home, '.local', 'share', 'bash-completion', 'completions', 'svc'), 'utf8')).toContain('complete -F _svc svc');
    const fish = await runSvc(['completion', 'install', 'fish'], { env });
    expect(fish.exitCode, fish.stderr).toBe(0);
    expect(fish.stderr).toMatch(/checked in a new fish: svc<Tab> completes/);
    expect(await readFile(join(home, '.config', 'fish', 'completions', 'svc.fish'), 'utf8')).toContain('complete -c svc');
    expect(await tabIn('fish', env, 'svc --profile prod')).toContain('svc --profile production');
  }, 60_000);
});
