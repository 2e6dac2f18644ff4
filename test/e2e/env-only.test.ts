// Credentials from the environment and no secret store, as on a CI runner: what is shown
// once (a webhook's signing secret) is never silently lost, and the messages name what the
// runner can act on (its own SVC_TOKEN, not `svc auth login`).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/net-port.js';
import { makeSvcHome, repoRoot, runSvc, svcBin, svcEnv, tempDirs } from './helpers.js';
import { startMerchant, type Merchant } from './merchant.js';
import { CLIENT_ID } from './oauth-fixture.js';

const dirs = tempDirs();
let m: Merchant;
let apiKey: string;

beforeAll(async () => {
  m = await startMerchant(dirs);
  const seed = JSON.parse(await readFile(join(repoRoot, 'fixtures', 'sandbox.json'), 'utf8')) as { companies: { apiKey: string }[] };
  apiKey = seed.companies[0]!.apiKey;
});
afterAll(async () => {
  await m?.sandbox.stop();
  await dirs.cleanup();
});

/** The environment of a runner: no secret store chosen, no D-Bus, a home of its own. */
async function runnerEnv(extra: Record<string, string>) {
  const home = await makeSvcHome(dirs);
  return { home, env: { SVC_SECRET_STORE: undefined, DBUS_SESSION_BUS_ADDRESS: undefined, HOME: await dirs.make('svc-home-'), SVC_BASE_URL: m.sandbox.url, ...extra } };
}

/** `svc ARGS` on a runner. */
async function onRunner(args: string[], extra: Record<string, string>) {
  return runSvc(args, await runnerEnv(extra));
}

/** `svc webhook listen ARGS` on a fresh runner until it listens; `during` runs, then SIGTERM. */
async function listenOnRunner(args: string[], extra: Record<string, string>, during: (out: { stdout(): string; stderr(): string }) => Promise<void>) {
  const { home, env } = await runnerEnv(extra);
  const child = execa('node', [svcBin, 'webhook', 'listen', ...args], { env: svcEnv(home, env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore' });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  try {
    for (const deadline = Date.now() + 20_000; !stderr.includes('listening on'); ) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the listener did not start:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await during({ stdout: () => stdout, stderr: () => stderr });
  } finally {
    child.kill('SIGTERM');
    await child;
  }
  return { stdout, stderr };
}

const subscriptions = async () => JSON.parse((await m.svc(['api', 'GET', '/webhook/subscription'])).stdout) as { id: string; notificationUrl: string }[];

describe('a webhook signing secret with no secret store', () => {
  it('is refused without --show-secret, before anything is created (exit 2)', async () => {
    const before = await subscriptions();
    const r = await onRunner(['webhook', 'subscribe', '--url', 'https://ci.example/refused', '--events', 'RETURN_REQUESTED', '--json'], { SVC_API_KEY: apiKey });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({ error: { code: 'usage', hint: expect.stringContaining('--show-secret') } });
    expect(await subscriptions()).toEqual(before);
  });

  it('with --show-secret: printed once (a `secret` member under --json, the second line otherwise) with a warning to keep it', async () => {
    const json = await onRunner(['webhook', 'subscribe', '--url', 'https://ci.example/json', '--events', 'RETURN_REQUESTED', '--show-secret', '--json'], { SVC_API_KEY: apiKey });
    expect(json.exitCode, json.stderr).toBe(0);
    const created = JSON.parse(json.stdout) as { id: string; secret: string };
    expect(created.secret).toMatch(/^whsec_/);
    expect(json.stderr).toContain(`warning: subscription ${created.id}'s signing secret is printed once and kept nowhere`);
    expect(json.stderr).not.toContain(created.secret);

    const human = await onRunner(['webhook', 'subscribe', '--url', 'https://ci.example/human', '--events', 'RETURN_REQUESTED', '--show-secret'], { SVC_API_KEY: apiKey });
    expect(human.exitCode, human.stderr).toBe(0);
    const [id, secret, rest] = human.stdout.split('\n');
    expect(id).toMatch(/\S/);
    expect(secret).toMatch(/^whsec_/);
    expect(rest).toBe('');
    expect(human.stderr).toContain('keep it now');
  });
});

describe('webhook listen --subscribe with no secret store', () => {
  /** One RETURN_REQUESTED for the company, and waits until the listener printed it. */
  async function oneEvent(out: { stderr(): string }) {
    const sent = await onRunner(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com', '--json'], { SVC_API_KEY: apiKey });
    expect(sent.exitCode, sent.stderr).toBe(0);
    const { serviceReceiptId } = JSON.parse(sent.stdout) as { serviceReceiptId: string };
    const seen = out.stderr().split('RETURN_REQUESTED').length;
    await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1']);
    for (const deadline = Date.now() + 20_000; out.stderr().split('RETURN_REQUESTED').length === seen; ) {
      if (Date.now() > deadline) throw new Error(`no event arrived:\n${out.stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('refused without --show-secret or SVC_WEBHOOK_SECRET, before anything is created (exit 2)', async () => {
    const before = await subscriptions();
    const r = await onRunner(['webhook', 'listen', '--port', '0', '--subscribe', '--json'], { SVC_API_KEY: apiKey });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({ error: { code: 'usage', hint: expect.stringContaining('--show-secret') } });
    expect(r.stderr).toContain('SVC_WEBHOOK_SECRET');
    expect(await subscriptions()).toEqual(before);
  });

  it('--show-secret prints it once; a restart on a fresh runner with SVC_WEBHOOK_SECRET reuses the subscription and verifies its deliveries', async () => {
    const port = await freeLoopbackPort();
    const url = `http://127.0.0.1:${port}/webhooks`;
    const first = await listenOnRunner(['--port', String(port), '--subscribe', '--show-secret', '--json'], { SVC_API_KEY: apiKey }, oneEvent);
    const [head] = first.stdout.split('\n');
    const { subscription } = JSON.parse(head ?? '') as { subscription: { id: string; secret: string; notificationUrl: string } };
    expect(subscription).toMatchObject({ id: expect.stringMatching(/^whsub_/), secret: expect.stringMatching(/^whsec_/), notificationUrl: url });
    expect(first.stderr).toContain(`warning: subscription ${subscription.id}'s signing secret is printed once and kept nowhere`);
    expect(first.stderr).not.toContain(subscription.secret);
    expect(first.stderr).not.toContain('refused a delivery');
    expect(first.stdout).toContain('"verified":true');

    const second = await listenOnRunner(['--port', String(port), '--subscribe', '--json'], { SVC_API_KEY: apiKey, SVC_WEBHOOK_SECRET: subscription.secret }, oneEvent);
    expect(second.stderr).toContain(`reusing subscription ${subscription.id}`);
    expect(second.stderr).not.toContain('refused a delivery');
    expect(second.stdout).toContain('"verified":true');
    expect(second.stdout).not.toContain(subscription.secret);
    expect((await subscriptions()).filter((s) => s.notificationUrl === url)).toHaveLength(1);
  });
});

describe('webhook listen --show-secret with a secret store', () => {
  it('prints the subscription with its secret as the first --json line; without --subscribe it is refused (exit 2)', async () => {
    const refused = await runSvc(['webhook', 'listen', '--port', '0', '--show-secret'], { home: m.home, env: m.env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--show-secret goes with --subscribe');

    const child = execa('node', [svcBin, 'webhook', 'listen', '--port', '0', '--subscribe', '--show-secret', '--json'], { env: svcEnv(m.home, m.env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore' });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      for (const deadline = Date.now() + 20_000; !stderr.includes('listening on'); ) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the listener did not start:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      child.kill('SIGTERM');
      await child;
    }
    const { subscription } = JSON.parse(stdout.split('\n')[0] ?? '') as { subscription: { id: string; secret: string } };
    expect(subscription.secret).toMatch(/^whsec_/);
    expect(stderr).not.toContain(subscription.secret);
    expect(stderr).not.toContain('kept nowhere');
  });
});

describe('svc api sends what each path needs', () => {
  it('a bearer of that Grant for GET /oauth2/grants/{id}, the usual token for GET /oauth2/token/validate', async () => {
    const { grant_id: grantId } = await m.json<{ grant_id: string }>(['token', 'get']);
    const details = await runSvc(['api', 'GET', `/oauth2/grants/${grantId}`], { home: m.home, env: m.env });
    expect(details.exitCode, details.stderr).toBe(0);
    expect(JSON.parse(details.stdout)).toMatchObject({ grant_id: grantId });
    const validate = await runSvc(['api', 'GET', '/oauth2/token/validate'], { home: m.home, env: m.env });
    expect(validate.exitCode, validate.stderr).toBe(0);
    expect(validate.stdout.trim()).toBe('true');
  });

  it('with SVC_API_KEY only: the API key on GET /client-application/{id}/public-key, no token asked for', async () => {
    const r = await onRunner(['api', 'GET', '/client-application/app_sandbox_pos/public-key'], { SVC_API_KEY: apiKey });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ algorithm: 'RSA_2048', keyData: expect.any(String) });
  });
});

describe('messages on a runner', () => {
  it('auth status and auth status --check: exit 0 with no keychain when the check passed', async () => {
    const runners: Record<string, string>[] = [{ SVC_API_KEY: apiKey }, { SVC_TOKEN: (await m.json<{ access_token: string }>(['token', 'get'])).access_token }];
    for (const extra of runners) {
      for (const args of [['auth', 'status'], ['auth', 'status', '--check']]) {
        const r = await onRunner(args, extra);
        expect(r.exitCode, `${args.join(' ')} ${Object.keys(extra).join()}: ${r.stdout}${r.stderr}`).toBe(0);
      }
    }
  });

  it('token get with only SVC_TOKEN prints it', async () => {
    const r = await onRunner(['token', 'get'], { SVC_TOKEN: 'handed-in-token' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('handed-in-token\n');
  });

  it('token validate checks SVC_TOKEN, the token every other command would send: valid on a runner with no cache, exit 0', async () => {
    const { access_token: token } = await m.json<{ access_token: string }>(['token', 'get']);
    const r = await onRunner(['token', 'validate'], { SVC_TOKEN: token });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('valid\n');
    const json = await onRunner(['token', 'validate', '--json'], { SVC_TOKEN: token });
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ valid: true });
    expect(`${r.stderr}${json.stderr}`).not.toContain(token);
  });

  it('token validate of a refused SVC_TOKEN, even beside a good cached token: {"valid": false} on stdout, exit 4 asking for a new SVC_TOKEN', async () => {
    const refused = 'svc-e2e-refused-token-4711';
    const r = await runSvc(['token', 'validate', '--json'], { home: m.home, env: { ...m.env, SVC_TOKEN: refused } });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(JSON.parse(r.stdout)).toEqual({ valid: false });
    const error = (JSON.parse(r.stderr.trim().split('\n').at(-1) ?? '') as { error: { code: string; message: string; hint: string } }).error;
    expect(error.code).toBe('authentication_required');
    expect(error.message).toContain('SVC_TOKEN');
    expect(error.hint).toContain('set SVC_TOKEN to a new token');
    expect(error.hint).not.toContain('svc auth login');
    expect(r.stderr).not.toContain(refused);
    // The cache was not the token asked about: it is kept, and still good.
    const cached = await runSvc(['token', 'validate'], { home: m.home, env: m.env });
    expect(cached.exitCode, cached.stderr).toBe(0);
  });

  it('token validate with nothing cached (no secret store): the hint is a command that works, not another `svc token get`', async () => {
    const grant = (await m.json<{ grant_id: string }>(['token', 'get'])).grant_id;
    const env = { SVC_CLIENT_ID: CLIENT_ID, SVC_CLIENT_SECRET: m.fixture.clientSecret, SVC_GRANT_ID: grant };
    const r = await onRunner(['token', 'validate'], env);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain(`no cached token for Grant ${grant}`);
    const hint = /^hint: (.*)$/m.exec(r.stderr)?.[1] ?? '';
    expect(hint).toContain('`svc token get | svc token validate -`');
    // What the hint says, done.
    const { home, env: runner } = await runnerEnv(env);
    const piped = await execa('sh', ['-c', `node ${svcBin} token get | node ${svcBin} token validate -`], { env: svcEnv(home, runner), extendEnv: false, reject: false });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stdout).toBe('valid');
    expect(`${r.stderr}${piped.stderr}`).not.toContain(m.fixture.clientSecret);
  });

  it('a refused SVC_TOKEN says so and asks for a new one, not `svc auth login`', async () => {
    const r = await onRunner(['credit-note', 'poll'], { SVC_TOKEN: 'not-a-token' });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('SVC_TOKEN');
    expect(r.stderr).not.toContain('svc auth login');
  });
});

describe('a new key pair with no secret store', () => {
  const registered = async () => (await onRunner(['api', 'GET', '/client-application/app_sandbox_pos/public-key'], { SVC_API_KEY: apiKey })).stdout;

  it.each(['keys generate --upload', 'keys generate', 'keys rotate'])('svc %s is refused (exit 2) before a key is made or uploaded, naming where a key can be kept', async (command) => {
    const before = await registered();
    const r = await onRunner(command.split(' '), { SVC_API_KEY: apiKey, CI: 'true' });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('private key could be kept nowhere');
    expect(r.stderr).toContain('SVC_SECRET_STORE=file');
    expect(r.stderr).toContain('SVC_PRIVATE_KEY_FILE');
    expect(r.stderr).not.toContain('private key stored');
    expect(await registered()).toBe(before);
  });

  it("the poll's warning of no private keys names what a runner can do, and that works: the registered key handed in with SVC_PRIVATE_KEY_FILE", async () => {
    const poll = await onRunner(['credit-note', 'poll'], { SVC_API_KEY: apiKey, CI: 'true' });
    expect(poll.exitCode, poll.stderr).toBe(0);
    expect(poll.stderr).toContain('this profile has no private keys');
    expect(poll.stderr).toContain('SVC_PRIVATE_KEY_FILE');
    expect(poll.stderr).not.toContain('create one with `svc keys generate --upload`');
    // The service encrypts for the merchant's key, so the hint names that one and where it comes from.
    const before = await registered();
    expect(poll.stderr).toContain('svc keys export --file key.pem');
    // A key of the runner's own would take the requests from the merchant's machine: not without --yes.
    const { generateKeyPairSync } = await import('node:crypto');
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const own = join(await dirs.make('svc-key-'), 'key.pem');
    await writeFile(own, pem, { mode: 0o600 });
    const replacing = await onRunner(['keys', 'upload'], { SVC_API_KEY: apiKey, CI: 'true', SVC_PRIVATE_KEY_FILE: own });
    expect(replacing.exitCode, replacing.stderr).toBe(2);
    expect(replacing.stderr).toContain('--yes');
    expect(await registered()).toBe(before);
    // What the hint says, done: the merchant's key exported, handed in, uploaded again (the same key) and read with.
    const exported = join(await dirs.make('svc-key-'), 'key.pem');
    await m.svc(['keys', 'export', '--file', exported]);
    const upload = await onRunner(['keys', 'upload'], { SVC_API_KEY: apiKey, CI: 'true', SVC_PRIVATE_KEY_FILE: exported });
    expect(upload.exitCode, upload.stderr).toBe(0);
    expect(await registered()).toBe(before);
  });
});
