// A sandbox that keeps its state: `svc sandbox start --state DIR` killed with -9 in the middle
// of a merchant's work and started again holds the same Grants, tokens, receipts, return
// queue, subscriptions and clock. Without a kept state, the invalid_grant that follows a
// restart says that the sandbox restarted and how to log in again.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/net-port.js';
import { makeSvcHome, repoRoot, runSvc, startSandbox, svcBin, svcEnv, tempDirs, type SandboxProcess } from './helpers.js';
import { receiptDatedToday, type PolledItem } from './merchant.js';
import { fixtureWithOwnRedirect, loginAutoApproved } from './oauth-fixture.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

describe('svc sandbox start --state', () => {
  it('killed with -9 mid-flow and restarted: token valid, receipts, queue, subscriptions and clock intact', async () => {
    const fixture = await fixtureWithOwnRedirect(dirs);
    const state = join(await dirs.make('svc-sandbox-state-'), 'state');
    const port = await freeLoopbackPort();
    const start = () => startSandbox(['--port', String(port), '--fixture', fixture.path, '--auto-approve', '--state', state]);
    let sandbox: SandboxProcess = await start();
    try {
      await sandbox.waitForStderr(`state: kept in ${state}`);
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
      const sent = JSON.parse((await svc(['receipt', 'send', '--file', await receiptDatedToday(dirs), '--email', 'alice@example.com', '--json'])).stdout) as { serviceReceiptId: string };
      await svc(['sandbox', 'trigger', 'return-request', sent.serviceReceiptId, '--item', '4001234567890:1']);
      const subscription = (await svc(['webhook', 'subscribe', '--url', `http://127.0.0.1:${await freeLoopbackPort()}/hooks`])).stdout.trim();
      await svc(['sandbox', 'clock', 'advance', '5m']);
      const before = (await (await fetch(`${sandbox.url}/sandbox/health`)).json()) as { now: string; stateSince: string; persistent: boolean };
      expect(before.persistent).toBe(true);

      await sandbox.crash();
      sandbox = await start();
      await sandbox.waitForStderr(`state: restored from ${state}`);

      expect((await svc(['token', 'validate'])).stdout.trim()).toBe('valid');
      // A new token for the same Grant: the sandbox still knows it.
      await svc(['token', 'get', '--force']);
      const queue = JSON.parse((await svc(['credit-note', 'poll', '--json'])).stdout) as PolledItem[];
      expect(queue.map((q) => q.serviceReceiptId)).toContain(sent.serviceReceiptId);
      const deliveries = (await (await fetch(`${sandbox.url}/sandbox/deliveries?serviceReceiptId=${sent.serviceReceiptId}`)).json()) as unknown[];
      expect(deliveries.length).toBeGreaterThan(0);
      const rows = JSON.parse((await svc(['webhook', 'list', '--json'])).stdout) as { id: string; onService: boolean }[];
      expect(rows.find((r) => r.id === subscription)?.onService).toBe(true);
      const after = (await (await fetch(`${sandbox.url}/sandbox/health`)).json()) as { now: string; stateSince: string };
      expect(after.stateSince).toBe(before.stateSince);
      expect(Date.parse(after.now)).toBeGreaterThanOrEqual(Date.parse(before.now));
      expect(Date.parse(after.now) - Date.now()).toBeGreaterThan(250_000);
    } finally {
      await sandbox.stop();
    }
  });

  it('the sandbox killed with -9 in the middle of a batch, restarted, the batch run again: every receipt exactly once', async () => {
    const fixture = await fixtureWithOwnRedirect(dirs);
    const state = join(await dirs.make('svc-sandbox-state-'), 'state');
    const port = await freeLoopbackPort();
    const start = () => startSandbox(['--port', String(port), '--fixture', fixture.path, '--auto-approve', '--state', state]);
    let sandbox: SandboxProcess = await start();
    try {
      const home = await makeSvcHome(dirs);
      const env = { SVC_BASE_URL: sandbox.url };
      const { result } = await loginAutoApproved(home, sandbox.url, fixture);
      expect(result.exitCode, result.stderr).toBe(0);
      const template = JSON.parse(await readFile(await receiptDatedToday(dirs), 'utf8')) as Record<string, unknown>;
      const COUNT = 80;
      const file = join(await dirs.make('svc-batch-'), 'receipts.jsonl');
      await writeFile(file, `${Array.from({ length: COUNT }, (_, i) => JSON.stringify({ template: { ...template, documentNumber: `K-${i + 1}` }, email: 'alice@example.com' })).join('\n')}\n`);

      const batch = execa('node', [svcBin, 'receipt', 'send', '--batch', file, '--concurrency', '4'], { env: svcEnv(home, env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore' });
      let seen = 0;
      let crashed: Promise<void> | undefined;
      batch.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.toString().split('\n').length - 1;
        if (seen >= COUNT / 3) crashed ??= sandbox.crash();
      });
      const first = await batch;
      await crashed;
      expect(crashed, 'the sandbox was never killed').toBeDefined();
      expect(first.exitCode).not.toBe(0);

      sandbox = await start();
      await sandbox.waitForStderr(`state: restored from ${state}`);
      const again = await runSvc(['receipt', 'send', '--batch', file], { home, env });
      expect(again.exitCode, again.stderr).toBe(0);
      const deliveries = (await (await fetch(`${sandbox.url}/sandbox/deliveries`)).json()) as { serviceReceiptId: string; kind: string }[];
      const issued = new Set(deliveries.filter((d) => d.kind === 'RECEIPT').map((d) => d.serviceReceiptId));
      expect(issued.size).toBe(COUNT);
      const listed = JSON.parse((await runSvc(['receipt', 'list', '--json'], { home, env })).stdout) as { serviceReceiptId: string }[];
      expect(new Set(listed.map((r) => r.serviceReceiptId))).toEqual(issued);
    } finally {
      await sandbox.stop();
    }
  });

  it('a second sandbox on the same state is refused naming the first (exit 7); another fixture is refused (exit 2)', async () => {
    const fixture = await fixtureWithOwnRedirect(dirs);
    const state = join(await dirs.make('svc-sandbox-state-'), 'state');
    const first = await startSandbox(['--fixture', fixture.path, '--state', state]);
    try {
      const second = await runSvc(['sandbox', 'start', '--port', '0', '--fixture', fixture.path, '--state', state]);
      expect(second.exitCode).toBe(7);
      expect(second.stderr).toContain(`another sandbox keeps its state in ${state} (pid `);
    } finally {
      await first.stop();
    }
    const other = await fixtureWithOwnRedirect(dirs);
    const mixed = await runSvc(['sandbox', 'start', '--port', '0', '--fixture', other.path, '--state', state]);
    expect(mixed.exitCode).toBe(2);
    expect(mixed.stderr).toContain('seeded from another fixture');
    const both = await runSvc(['sandbox', 'start', '--port', '0', '--state', state, '--ephemeral']);
    expect(both.exitCode).toBe(2);
  });

  it('a state made with --companies 50, started with --auto-approve alone: refused naming --companies 50 and how to start afresh (exit 2)', async () => {
    const fixture = await fixtureWithOwnRedirect(dirs);
    const state = join(await dirs.make('svc-sandbox-state-'), 'state');
    const first = await startSandbox(['--fixture', fixture.path, '--companies', '50', '--state', state]);
    await first.stop();
    const again = await runSvc(['sandbox', 'start', '--port', '0', '--fixture', fixture.path, '--auto-approve', '--state', state]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('--companies 50');
    expect(again.stderr).toContain('--ephemeral');
    expect(again.stderr).toContain(`remove ${state}`);
  });

  it('restarted without a kept state: the refused Grant says the sandbox restarted and how to log in', async () => {
    const fixture = await fixtureWithOwnRedirect(dirs);
    const port = await freeLoopbackPort();
    const start = () => startSandbox(['--port', String(port), '--fixture', fixture.path, '--auto-approve', '--ephemeral']);
    let sandbox = await start();
    try {
      await sandbox.waitForStderr('state: in memory only');
      const home = await makeSvcHome(dirs);
      const { result } = await loginAutoApproved(home, sandbox.url, fixture);
      expect(result.exitCode, result.stderr).toBe(0);
      await sandbox.stop();
      sandbox = await start();
      const refused = await runSvc(['token', 'get', '--force'], { home, env: { SVC_BASE_URL: sandbox.url } });
      expect(refused.exitCode).toBe(4);
      expect(refused.stderr).toContain('invalid_grant');
      expect(refused.stderr).toContain('restarted without --state, or reset');
      expect(refused.stderr).toMatch(/^error: the sandbox at \S+ no longer knows Grant \S+/m);
      expect(refused.stderr).not.toContain('revoked, or belongs to another client');
      expect(refused.stderr).toContain('svc sandbox login');
    } finally {
      await sandbox.stop();
    }
  });
});
