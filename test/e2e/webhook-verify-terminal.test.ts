// `svc webhook verify --secret-stdin` typed at a terminal, as docs/webhooks.md's loop shows
// it without `< secret.txt`: svc asks for the secret at a hidden prompt, as `svc auth
// set-secret` does, so what is typed never shows on the screen; piped, it is read as before
// (test/webhook/commands.test.ts).
import { createHmac } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSvcHome, svcEnv, tempDirs } from './helpers.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

const SECRET = 'whsec_typed-at-the-keyboard-5f2c';

describe('webhook verify --secret-stdin on a terminal', () => {
  it('asks for the secret at a hidden prompt: the typed secret is not on the screen, and the check runs', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const home = await makeSvcHome(dirs);
    const body = Buffer.from('{"event":"RETURN_REQUESTED","data":{}}');
    const file = join(home.stateDir, 'body.json');
    await writeFile(file, body);
    const t = Math.floor(Date.now() / 1000);
    const signature = `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.`).update(body).digest('hex')}`;
    const term = svcInTerminal('svc-verify-secret', ['webhook', 'verify', '--file', file, '--signature', signature, '--secret-stdin'], svcEnv(home), [100, 20]);
    try {
      await term.waitFor('Webhook signing secret', 'the prompt for the secret');
      term.type(SECRET);
      term.keys('Enter');
      await term.waitFor('SVC-EXIT=0', 'a valid signature (exit 0)');
      expect(term.text()).toMatch(/valid: signed at /);
      expect(term.text()).not.toContain(SECRET);
      expect(term.text()).not.toContain(SECRET.slice(0, 8));
    } finally {
      term.kill();
    }
  });
});

describe('the other secrets read from stdin, on a terminal', () => {
  // auth set-secret --stdin, auth login --client-secret-stdin and token validate - each read
  // stdin as it comes; typed at a terminal, the line echoed the secret on the screen.
  const TYPED = 'typed-secret-7c41d9e0a2';
  for (const [name, args, prompt] of [
    ['auth set-secret --stdin', ['auth', 'set-secret', '--stdin'], 'Client secret'],
    ['auth login --client-secret-stdin', ['auth', 'login', '--client-id', 'app-1', '--client-secret-stdin', '--base-url', 'http://127.0.0.1:9'], 'Client secret'],
    ['token validate -', ['token', 'validate', '-', '--base-url', 'http://127.0.0.1:9'], 'Token'],
  ] as const) {
    it(`${name}: a hidden prompt; what is typed is not on the screen`, async (ctx) => {
      const missing = requireTools(['tmux']);
      if (missing) return ctx.skip(missing);
      const home = await makeSvcHome(dirs);
      const term = svcInTerminal(`svc-stdin-${name.split(' ').slice(0, 2).join('-')}`, args, svcEnv(home), [120, 20]);
      try {
        await term.waitFor(prompt, `the prompt for the secret (${name})`);
        term.type(TYPED);
        term.keys('Enter');
        await term.waitFor('SVC-EXIT=', `${name} to end`, 30_000);
        expect(term.text()).not.toContain(TYPED.slice(0, 10));
      } finally {
        term.kill();
      }
    }, 60_000);
  }
});
