// Credentials from the environment and no secret store, as on a CI runner: what is shown
// once (a webhook's signing secret) is never silently lost, and the messages name what the
// runner can act on (its own SVC_TOKEN, not `svc auth login`).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSvcHome, repoRoot, runSvc, tempDirs } from './helpers.js';
import { startMerchant, type Merchant } from './merchant.js';

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

/** `svc ARGS` on a runner: no secret store chosen, no D-Bus, a home of its own. */
async function onRunner(args: string[], extra: Record<string, string>) {
  const home = await makeSvcHome(dirs);
  return runSvc(args, { home, env: { SVC_SECRET_STORE: undefined, DBUS_SESSION_BUS_ADDRESS: undefined, HOME: await dirs.make('svc-home-'), SVC_BASE_URL: m.sandbox.url, ...extra } });
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
