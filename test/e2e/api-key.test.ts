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
  sandbox = await startSandbox();
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
});
