// A CI pipeline with no login at all: the company API key in SVC_API_KEY issues receipts,
// and with the company's private key in SVC_PRIVATE_KEY_FILE it reads the return queue.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSvcHome, repoRoot, runSvc, startSandbox, tempDirs, type SandboxProcess, type SvcHome } from './helpers.js';
import { receiptDatedToday } from './merchant.js';

const dirs = tempDirs();
let sandbox: SandboxProcess;
let home: SvcHome;
let env: Record<string, string>;
let receiptFile: string;

beforeAll(async () => {
  // --auto-approve: the second test logs a person's profile in with `sandbox login`.
  sandbox = await startSandbox(['--auto-approve']);
  home = await makeSvcHome(dirs);
  const seed = JSON.parse(await readFile(join(repoRoot, 'fixtures', 'sandbox.json'), 'utf8')) as {
    companies: { apiKey: string; encryptionKey: { privateKeyPem: string } | null }[];
  };
  const company = seed.companies[0];
  if (!company?.encryptionKey) throw new Error('the fixture company has no encryption key');
  const keyFile = join(await dirs.make('svc-key-'), 'company.pem');
  await writeFile(keyFile, company.encryptionKey.privateKeyPem, { mode: 0o600 });
  env = { SVC_BASE_URL: sandbox.url, SVC_API_KEY: company.apiKey, SVC_PRIVATE_KEY_FILE: keyFile };
  receiptFile = await receiptDatedToday(dirs);
});
afterAll(async () => {
  await sandbox?.stop();
  await dirs.cleanup();
});

describe('SVC_API_KEY, no login', () => {
  it('issues a receipt and decrypts the return queue with SVC_PRIVATE_KEY_FILE', async () => {
    const sent = await runSvc(['receipt', 'send', '--file', receiptFile, '--email', 'bob@example.com', '--json', '--debug'], { home, env });
    expect(sent.exitCode, sent.stderr).toBe(0);
    expect(sent.stderr).toContain('x-api-key: [redacted]');
    expect(sent.stderr).not.toContain(env.SVC_API_KEY);
    const { serviceReceiptId } = JSON.parse(sent.stdout) as { serviceReceiptId: string };

    const requested = await runSvc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--json'], { home, env });
    expect(requested.exitCode, requested.stderr).toBe(0);
    const { requestId } = JSON.parse(requested.stdout) as { requestId: string };

    const polled = await runSvc(['credit-note', 'poll', '--json'], { home, env });
    expect(polled.exitCode, polled.stderr).toBe(0);
    const item = (JSON.parse(polled.stdout) as { requestId: string; returnRequest?: { serviceReceiptId: string }; decryptError?: string }[]).find(
      (q) => q.requestId === requestId,
    );
    expect(item?.decryptError).toBeUndefined();
    expect(item?.returnRequest?.serviceReceiptId).toBe(serviceReceiptId);
  });

  it('a return request triggered from a profile that did not issue the receipt names no company it cannot see: the issuing caller polls it', async () => {
    const file = join(await dirs.make('svc-receipt-'), 'other.json');
    await writeFile(file, JSON.stringify({ ...JSON.parse(await readFile(receiptFile, 'utf8')), documentNumber: 'R-2025-000872' }));
    const sent = await runSvc(['receipt', 'send', '--file', file, '--email', 'bob@example.com', '--json'], { home, env });
    expect(sent.exitCode, sent.stderr).toBe(0);
    const { serviceReceiptId } = JSON.parse(sent.stdout) as { serviceReceiptId: string };
    // A person's profile, logged in with Grants of the same companies, but through a client application of its own.
    const person = await makeSvcHome(dirs);
    const own = { SVC_BASE_URL: sandbox.url };
    const login = await runSvc(['sandbox', 'login'], { home: person, env: own });
    expect(login.exitCode, login.stderr).toBe(0);
    const requested = await runSvc(['sandbox', 'trigger', 'return-request', serviceReceiptId], { home: person, env: own });
    expect(requested.exitCode, requested.stderr).toBe(0);
    const requestId = requested.stdout.trim();
    expect(requested.stderr).toContain(`this profile did not issue receipt ${serviceReceiptId}: the client application or API key that did sees it with \`svc credit-note poll\``);
    // What it says is so: this profile's poll does not list it, the issuing API key's does.
    const mine = await runSvc(['credit-note', 'poll', '--all-grants', '--all', '--no-decrypt', '--json'], { home: person, env: own });
    expect((JSON.parse(mine.stdout) as { requestId: string }[]).map((q) => q.requestId)).not.toContain(requestId);
    const issuer = await runSvc(['credit-note', 'poll', '--json'], { home, env });
    expect((JSON.parse(issuer.stdout) as { requestId: string }[]).map((q) => q.requestId)).toContain(requestId);
  });
});
