// install() with a stand-in for the new shell it asks (the real shells are asked in
// test/e2e/completion-install.test.ts).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ShellCheck } from '../../src/completion/check.js';
import { install, installPlan } from '../../src/completion/install.js';
import { SvcError } from '../../src/errors.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'svc-install-'));
});
afterEach(() => rm(home, { recursive: true, force: true }));

const answers = (...list: ShellCheck[]) => async () => list.shift() ?? { ran: false as const, reason: 'asked too often' };

describe('install', () => {
  it('bash that does not complete svc after the script is written: the line in ~/.bashrc, asked again', async () => {
    await writeFile(join(home, '.bashrc'), '. /usr/share/bash-completion/bash_completion\n');
    const done = await install(installPlan('bash', { HOME: home }), '# script\n', answers({ ran: true, works: false }, { ran: true, works: true }));
    expect(await readFile(join(home, '.bashrc'), 'utf8')).toContain('bash-completion/completions/svc ] && .');
    expect(done.at(-1)).toBe('checked in a new bash: svc<Tab> completes; open a new bash (or a new terminal) to use it');
  });

  it('a shell that still does not complete: fails with the line that always works', async () => {
    const error = await install(installPlan('bash', { HOME: home }), '# script\n', answers({ ran: true, works: false }, { ran: true, works: false })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).hint).toBe('add this line to ~/.bashrc: eval "$(svc completion bash)"');
  });

  it('no shell to ask: the startup files decide, and it says it could not check', async () => {
    await writeFile(join(home, '.bashrc'), '. /usr/share/bash-completion/bash_completion\n');
    const done = await install(installPlan('bash', { HOME: home }), '# script\n', answers({ ran: false, reason: 'bash is not installed' }));
    expect(await readFile(join(home, '.bashrc'), 'utf8')).not.toContain('svc');
    expect(done.at(-1)).toBe('could not check it (bash is not installed); open a new bash and try svc <Tab>');
  });

  it('a second install changes nothing and says so: the script is up to date, the startup line already there', async () => {
    await writeFile(join(home, '.bashrc'), '# no bash-completion here\n');
    const plan = installPlan('bash', { HOME: home });
    const first = await install(plan, '# script\n', answers({ ran: true, works: false }, { ran: true, works: true }));
    expect(first[0]).toBe(`wrote ${plan.file}`);
    const bashrc = await readFile(join(home, '.bashrc'), 'utf8');
    // The new shell completes now (the line is there).
    const again = await install(plan, '# script\n', answers({ ran: true, works: true }));
    expect(again[0]).toBe(`${plan.file} is up to date`);
    expect(again.join('\n')).not.toContain('wrote');
    expect(await readFile(join(home, '.bashrc'), 'utf8')).toBe(bashrc);
    // A new svc's script is written again.
    expect((await install(plan, '# script 2\n', answers({ ran: true, works: true })))[0]).toBe(`wrote ${plan.file}`);
  });
});
