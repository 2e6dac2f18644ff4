// Shell completion of request IDs offers, for each move verb, only the requests that move is
// legal for (the moves table), with the statuses this machine last learnt: `issue --complete`
// and a status read back (show, triage) count as much as `accept`. In a real bash under tmux.
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSvc, svcBin, svcEnv } from './helpers.js';
import { milkRequests, useMerchant } from './merchant.js';
import { requireTools } from './require-tools.js';
import { tmux } from './tmux.js';

const { merchant, dirs } = useMerchant();

/** `line` and Tab Tab in an interactive bash with svc's completion loaded; the screen. */
async function tabIn(env: Record<string, string>, line: string): Promise<string> {
  const session = `svc-tab-moves-${process.pid}`;
  const exports = Object.entries(env).map(([k, v]) => `${k}='${v}'`).join(' ');
  tmux(['new-session', '-d', '-s', session, '-x', '150', '-y', '30', `env -i ${exports} bash -i`]);
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

describe('completion of request IDs by move', () => {
  it('complete <Tab> offers only the request still ACCEPTED, not those issue --complete completed', async (ctx) => {
    const missing = requireTools(['tmux', 'bash']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    // Two of milk on the receipt: two can be credited, the third stays ACCEPTED.
    const [a, b, c] = (await milkRequests(m, 3)) as [string, string, string];
    await m.svc(['credit-note', 'poll']);
    await m.svc(['credit-note', 'accept', a, b, c]);
    await m.svc(['credit-note', 'issue', a, '--complete', '--yes']);
    await m.svc(['credit-note', 'issue', b, '--complete', '--yes']);

    const ask = async (path: string) => (await runSvc(['__complete', '--', path, 'request-id'], { home: m.home, env: m.env })).stdout.trim().split('\n').filter(Boolean);
    expect(await ask('credit-note complete')).toEqual([c]);
    expect(await ask('credit-note issue')).toEqual([c]);
    expect(await ask('credit-note accept')).not.toContain(a);
    expect(await ask('credit-note show')).toEqual(expect.arrayContaining([a, b, c]));

    // As a person sees it: bash with svc's completion, on this merchant's profile.
    const home = await dirs.make('svc-account-');
    const bin = await dirs.make('svc-bin-');
    await writeFile(join(bin, 'svc'), `#!/bin/sh\nexec node ${svcBin} "$@"\n`);
    await chmod(join(bin, 'svc'), 0o755);
    const env = { ...svcEnv(m.home, m.env), HOME: home, PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`, TERM: 'xterm' };
    const shellEnv = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('SVC_') || ['HOME', 'PATH', 'TERM', 'NO_COLOR'].includes(k)));
    expect((await runSvc(['completion', 'install', 'bash'], { home: m.home, env: shellEnv })).exitCode).toBe(0);
    const screen = await tabIn(shellEnv, 'svc credit-note complete ');
    // One request offered: bash completes it in the line.
    expect(screen).toContain(`svc credit-note complete ${c}`);
    expect(screen).not.toContain(a);
    expect(screen).not.toContain(b);
  }, 60_000);
});
