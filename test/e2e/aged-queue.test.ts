// An aged queue in the sandbox: `svc sandbox trigger return-request --age 7d | --created-at
// ISO` makes a request as a customer would have made it back then, and `--count N` makes N
// at once through the bulk endpoint. The sandbox keeps them truthful: never before the
// purchase, never after its clock's now, and the queue stays oldest first.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runSvc } from './helpers.js';
import { useMerchant, type PolledItem } from './merchant.js';

const { merchant, dirs } = useMerchant();
const DAY = 86_400_000;

/** groceries.json, bought `days` ago. */
async function receiptBought(days: number): Promise<string> {
  const groceries = JSON.parse(await readFile(join(repoRoot, 'fixtures', 'receipts', 'groceries.json'), 'utf8')) as Record<string, unknown>;
  const file = join(await dirs.make('svc-aged-'), 'groceries.json');
  await writeFile(file, JSON.stringify({ ...groceries, documentNumber: `R-AGED-${days}-${Date.now()}`, issueDate: new Date(Date.now() - days * DAY).toISOString() }));
  const { serviceReceiptId } = await merchant().json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', file, '--email', 'alice@example.com']);
  return serviceReceiptId;
}

const trigger = (id: string, ...args: string[]) => runSvc(['sandbox', 'trigger', 'return-request', id, '--item', '4001234567890:1', ...args], { home: merchant().home, env: merchant().env });

describe('svc sandbox trigger return-request, aged', () => {
  it('--age and --created-at date the request back; poll lists it oldest first and --older-than finds it', async () => {
    const id = await receiptBought(10);
    const fresh = JSON.parse((await trigger(id, '--json')).stdout) as { requestId: string; createdAt: string };
    const aged = await trigger(id, '--age', '7d', '--json');
    expect(aged.exitCode, aged.stderr).toBe(0);
    const week = JSON.parse(aged.stdout) as { requestId: string; createdAt: string };
    expect(Math.abs(Date.parse(week.createdAt) - (Date.now() - 7 * DAY))).toBeLessThan(60_000);
    const at = new Date(Date.now() - 3 * DAY).toISOString();
    const dated = JSON.parse((await trigger(id, '--created-at', at, '--json')).stdout) as { requestId: string; createdAt: string };
    expect(dated.createdAt).toBe(at);

    const polled = await merchant().json<PolledItem[]>(['credit-note', 'poll', '--receipt', id]);
    expect(polled.map((p) => p.requestId)).toEqual([week.requestId, dated.requestId, fresh.requestId]);
    const old = await merchant().json<PolledItem[]>(['credit-note', 'poll', '--receipt', id, '--older-than', '5d']);
    expect(old.map((p) => p.requestId)).toEqual([week.requestId]);
  });

  it('--count N makes N requests at once through the bulk endpoint, aged too', async () => {
    const id = await receiptBought(10);
    const r = await trigger(id, '--count', '3', '--age', '2d', '--json');
    expect(r.exitCode, r.stderr).toBe(0);
    const bulk = JSON.parse(r.stdout) as { serviceReceiptId: string; count: number; requestIds: string[] };
    expect(bulk).toMatchObject({ serviceReceiptId: id, count: 3 });
    const polled = await merchant().json<(PolledItem & { createdAt: string })[]>(['credit-note', 'poll', '--receipt', id]);
    expect(polled.map((p) => p.requestId).sort()).toEqual([...bulk.requestIds].sort());
    for (const p of polled) expect(Math.abs(Date.parse(p.createdAt) - (Date.now() - 2 * DAY))).toBeLessThan(60_000);
    const human = await trigger(id, '--count', '2');
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('never before the purchase, never in the sandbox\'s future, and not both flags', async () => {
    const id = await receiptBought(10);
    const before = await trigger(id, '--age', '30d');
    expect(before.exitCode).toBe(2);
    expect(before.stderr).toMatch(/ageSeconds.*before the receipt was issued/);
    const future = await trigger(id, '--created-at', new Date(Date.now() + DAY).toISOString());
    expect(future.exitCode).toBe(2);
    expect(future.stderr).toMatch(/createdAt.*later than the sandbox clock/);
    const both = await trigger(id, '--age', '1d', '--created-at', new Date().toISOString());
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('--age and --created-at');
    const notATime = await trigger(id, '--created-at', 'yesterday');
    expect(notATime.exitCode).toBe(2);
    expect(notATime.stderr).toContain('--created-at');
  });
});

describe('the return window of an aged request', () => {
  it('is kept by when the customer asked, not by when the merchant works the queue: asked in time is credited, asked late is refused', async () => {
    // Bought 40 days ago: the window of 30 days closed 10 days ago.
    const id = await receiptBought(40);
    const inTime = JSON.parse((await trigger(id, '--age', '35d', '--json')).stdout) as { requestId: string };
    const late = JSON.parse((await trigger(id, '--age', '1d', '--json')).stdout) as { requestId: string };

    const shown = await merchant().svc(['credit-note', 'show', inTime.requestId]);
    expect(shown.stdout).toMatch(/return window: closed \d+ days ago \(\d{4}-\d\d-\d\d\); asked \d+ days after the purchase, within it/);
    expect(shown.stdout).toContain('checks: all passed');
    const issued = await runSvc(['credit-note', 'issue', inTime.requestId, '--yes', '--json'], { home: merchant().home, env: merchant().env });
    expect(issued.exitCode, issued.stderr).toBe(0);

    const refused = await runSvc(['credit-note', 'issue', late.requestId, '--yes'], { home: merchant().home, env: merchant().env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/asked for \d{4}-\d\d-\d\dT[\d:.]+Z, after the return window of 30 days ended/);
  });
});
