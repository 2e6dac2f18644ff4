// The merchant most end-to-end tests start from: a sandbox (auto-approving, with its own
// loopback redirect), a logged-in profile with an uploaded key pair, and a receipt request
// dated today (returns are accepted only within 30 days of the purchase).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { makeSvcHome, repoRoot, runSvc, startSandbox, tempDirs, type SandboxProcess, type SvcHome, type SvcResult, type TempDirs } from './helpers.js';
import { fixtureWithOwnRedirect, loginAutoApproved, type OAuthFixture } from './oauth-fixture.js';

export interface Merchant {
  sandbox: SandboxProcess;
  fixture: OAuthFixture;
  home: SvcHome;
  /** SVC_BASE_URL of the sandbox. */
  env: Record<string, string>;
  /** fixtures/receipts/groceries.json with today's issueDate. */
  receiptFile: string;
  /**
   * The same receipt under a document number of its own (R-2025-000871-<n>): a document
   * number identifies a document (docs/interface-decisions.md#idempotency-keys), so sending one file twice is one receipt.
   */
  newReceiptFile(): Promise<string>;
  /** Runs `svc ARGS` and expects exit 0. */
  svc(args: readonly string[]): Promise<SvcResult>;
  /** Runs `svc ARGS --json` and parses stdout. */
  json<T>(args: readonly string[]): Promise<T>;
}

/** An item of `svc credit-note poll --json`, as far as the tests read it. */
export interface PolledItem {
  requestId: string;
  serviceReceiptId: string;
  status: string;
  returnRequest?: { serviceReceiptId: string; lineItems: { productId: string; quantity: number }[] };
  decryptError?: string;
}

export async function receiptDatedToday(dirs: TempDirs, documentNumber?: string): Promise<string> {
  const groceries = JSON.parse(await readFile(join(repoRoot, 'fixtures', 'receipts', 'groceries.json'), 'utf8')) as Record<string, unknown>;
  const file = join(await dirs.make('svc-receipt-'), 'groceries-today.json');
  await writeFile(file, JSON.stringify({ ...groceries, issueDate: new Date().toISOString(), ...(documentNumber === undefined ? {} : { documentNumber }) }));
  return file;
}

/** Stop `merchant.sandbox` in afterAll. `sandboxArgs`: more flags of `sandbox start`, e.g. `--companies 50`. */
export async function startMerchant(dirs: TempDirs, sandboxArgs: readonly string[] = []): Promise<Merchant> {
  const fixture = await fixtureWithOwnRedirect(dirs);
  const sandbox = await startSandbox(['--fixture', fixture.path, '--auto-approve', ...sandboxArgs]);
  const home = await makeSvcHome(dirs);
  const env = { SVC_BASE_URL: sandbox.url };
  const svc = async (args: readonly string[]) => {
    const result = await runSvc(args, { home, env });
    expect(result.exitCode, `svc ${args.join(' ')}\n${result.stderr}`).toBe(0);
    return result;
  };
  const { result } = await loginAutoApproved(home, sandbox.url, fixture);
  expect(result.exitCode, result.stderr).toBe(0);
  await svc(['keys', 'generate', '--upload']);
  let receipts = 0;
  return {
    newReceiptFile: () => receiptDatedToday(dirs, `R-2025-000871-${++receipts}`),
    sandbox,
    fixture,
    home,
    env,
    receiptFile: await receiptDatedToday(dirs),
    svc,
    json: async <T>(args: readonly string[]) => JSON.parse((await svc([...args, '--json'])).stdout) as T,
  };
}

/**
 * The merchant of a test file: started before its tests, stopped (and its directories
 * removed) after them. Read `merchant()` inside tests and hooks, once it has started.
 */
export function useMerchant(sandboxArgs: readonly string[] = []): { merchant(): Merchant; dirs: TempDirs } {
  const dirs = tempDirs();
  let started: Merchant | undefined;
  beforeAll(async () => {
    started = await startMerchant(dirs, sandboxArgs);
  });
  afterAll(async () => {
    await started?.sandbox.stop();
    await dirs.cleanup();
  });
  return {
    dirs,
    merchant: () => {
      if (!started) throw new Error('the merchant has not started yet');
      return started;
    },
  };
}

/** Every request's status, as `poll --all --json` lists them. */
export async function queueStatuses(m: Merchant): Promise<Map<string, string>> {
  const all = await m.json<{ requestId: string; status: string }[]>(['credit-note', 'poll', '--all']);
  return new Map(all.map((q) => [q.requestId, q.status]));
}

/** What changed between two readings: requestId → new status. */
export function statusChanges(before: Map<string, string>, after: Map<string, string>): Record<string, string> {
  return Object.fromEntries([...after].filter(([id, status]) => before.get(id) !== status));
}

/** Return requests of one milk each on a new receipt, created in this order (oldest first). */
export async function milkRequests(m: Merchant, count: number): Promise<string[]> {
  const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push((await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1'])).stdout.trim());
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return ids;
}
