// CI without a keychain: no D-Bus session, no SVC_SECRET_STORE, a fresh HOME. Credentials
// from the environment (an API key with SVC_PRIVATE_KEY_FILE; client credentials with a
// Grant; a token handed in with SVC_TOKEN) run the whole flow, and say once that tokens are
// not cached, instead of failing with "no usable OS keychain".
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSvcHome, repoRoot, runSvc, tempDirs, type SvcHome } from './helpers.js';
import { startMerchant, type Merchant } from './merchant.js';
import { CLIENT_ID } from './oauth-fixture.js';

const dirs = tempDirs();
let m: Merchant;
let keyFile: string;
let apiKey: string;

beforeAll(async () => {
  m = await startMerchant(dirs);
  const seed = JSON.parse(await readFile(join(repoRoot, 'fixtures', 'sandbox.json'), 'utf8')) as {
    companies: { apiKey: string; encryptionKey: { privateKeyPem: string } | null }[];
  };
  const company = seed.companies[0];
  if (!company?.encryptionKey) throw new Error('the fixture company has no encryption key');
  apiKey = company.apiKey;
  keyFile = join(await dirs.make('svc-key-'), 'company.pem');
  await writeFile(keyFile, company.encryptionKey.privateKeyPem, { mode: 0o600 });
});
afterAll(async () => {
  await m?.sandbox.stop();
  await dirs.cleanup();
});

/** A runner's environment: no secret store chosen, no D-Bus, a home of its own. */
async function runner(extra: Record<string, string>): Promise<{ home: SvcHome; env: Record<string, string | undefined> }> {
  const home = await makeSvcHome(dirs);
  return { home, env: { SVC_SECRET_STORE: undefined, DBUS_SESSION_BUS_ADDRESS: undefined, HOME: await dirs.make('svc-home-'), SVC_BASE_URL: m.sandbox.url, ...extra } };
}

describe('credentials from the environment, no keychain', () => {
  it('SVC_API_KEY + SVC_PRIVATE_KEY_FILE: send, poll --json, show, accept and issue all work', async () => {
    const { home, env } = await runner({ SVC_API_KEY: apiKey, SVC_PRIVATE_KEY_FILE: keyFile });
    const run = (args: string[]) => runSvc(args, { home, env });
    const sent = await run(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'bob@example.com', '--json']);
    expect(sent.exitCode, sent.stderr).toBe(0);
    const { serviceReceiptId } = JSON.parse(sent.stdout) as { serviceReceiptId: string };
    const { requestId } = JSON.parse((await run(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1', '--json'])).stdout) as { requestId: string };

    const polled = await run(['credit-note', 'poll', '--json']);
    expect(polled.exitCode, polled.stderr).toBe(0);
    expect(polled.stderr).not.toContain('keychain');
    const item = (JSON.parse(polled.stdout) as { requestId: string; returnRequest?: unknown; decryptError?: string }[]).find((q) => q.requestId === requestId);
    expect(item?.decryptError).toBeUndefined();
    expect(item?.returnRequest).toBeDefined();

    const shown = await run(['credit-note', 'show', requestId]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect((await run(['credit-note', 'accept', requestId])).exitCode).toBe(0);
    const issued = await run(['credit-note', 'issue', requestId, '--yes', '--complete']);
    expect(issued.exitCode, issued.stderr).toBe(0);
    expect(issued.stderr).toContain(`request ${requestId} is COMPLETED`);
  });

  it('SVC_CLIENT_ID + SVC_CLIENT_SECRET + SVC_GRANT_ID: works, and says once per command that tokens are not cached', async () => {
    const [grant] = await m.json<{ grant_id: string }[]>(['grants', 'list']);
    if (!grant) throw new Error('the merchant has no Grant');
    const { home, env } = await runner({ SVC_CLIENT_ID: CLIENT_ID, SVC_CLIENT_SECRET: m.fixture.clientSecret, SVC_GRANT_ID: grant.grant_id });
    const sent = await runSvc(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'bob@example.com'], { home, env });
    expect(sent.exitCode, sent.stderr).toBe(0);
    expect(sent.stderr.match(/tokens are not cached/g)).toHaveLength(1);
    expect(sent.stderr).not.toContain(m.fixture.clientSecret);
  });

  it('SVC_TOKEN: a token handed in is used as it is', async () => {
    const token = (await m.svc(['token', 'get'])).stdout.trim();
    const { home, env } = await runner({ SVC_TOKEN: token });
    const sent = await runSvc(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'bob@example.com', '--debug'], { home, env });
    expect(sent.exitCode, sent.stderr).toBe(0);
    expect(sent.stderr).toContain('authorization: Bearer [redacted]');
    expect(sent.stderr).not.toContain(token);
  });
});
