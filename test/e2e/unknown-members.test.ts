// A member the interface does not name in a receipt or credit-note file (a typo such as
// `products[0].colour`): a warning naming each path, and with --strict exit 2 before
// anything is sent.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSvc } from './helpers.js';
import { useMerchant } from './merchant.js';

const { merchant, dirs } = useMerchant();

async function withTypo(): Promise<string> {
  const receipt = JSON.parse(await readFile(await merchant().newReceiptFile(), 'utf8')) as { products: Record<string, unknown>[] } & Record<string, unknown>;
  receipt.products[0]!.colour = 'red';
  receipt.documentNumbr = 'typo';
  const file = join(await dirs.make('svc-typo-'), 'receipt.json');
  await writeFile(file, JSON.stringify(receipt));
  return file;
}

describe('unknown members of a receipt file', () => {
  it('receipt send: a warning naming each path; the receipt is still issued', async () => {
    const m = merchant();
    const r = await runSvc(['receipt', 'send', '--file', await withTypo(), '--email', 'alice@example.com', '--json'], { home: m.home, env: m.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning:');
    expect(r.stderr).toContain('products[0].colour, documentNumbr');
  });

  it('--strict: exit 2 naming each path (JSON details), nothing sent', async () => {
    const m = merchant();
    const before = (await m.json<unknown[]>(['receipt', 'list'])).length;
    for (const args of [['receipt', 'send', '--email', 'alice@example.com'], ['receipt', 'template'], ['receipt', 'email', '--to', 'alice@example.com']]) {
      const r = await runSvc([...args, '--file', await withTypo(), '--strict', '--json'], { home: m.home, env: m.env });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(JSON.parse(r.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({
        error: { code: 'validation_failed', details: [{ path: 'products[0].colour' }, { path: 'documentNumbr' }] },
      });
    }
    expect((await m.json<unknown[]>(['receipt', 'list'])).length).toBe(before);
  });
});

describe('unknown members of a --customer file', () => {
  it('receipt send --customer: a warning naming each path; with --strict exit 2, nothing sent', async () => {
    const m = merchant();
    const customer = join(await dirs.make('svc-typo-customer-'), 'customer.json');
    await writeFile(customer, JSON.stringify({ nmae: 'Alice Example', email: 'alice@example.com' }));
    const warned = await runSvc(['receipt', 'send', '--file', await merchant().newReceiptFile(), '--email', 'alice@example.com', '--customer', customer], { home: m.home, env: m.env });
    expect(warned.exitCode, warned.stderr).toBe(0);
    expect(warned.stderr).toContain('customer.json has a member the interface does not name, sent as it is: nmae');
    const before = (await m.json<unknown[]>(['receipt', 'list'])).length;
    const strict = await runSvc(['receipt', 'send', '--file', await merchant().newReceiptFile(), '--email', 'alice@example.com', '--customer', customer, '--strict', '--json'], { home: m.home, env: m.env });
    expect(strict.exitCode, strict.stderr).toBe(2);
    expect(JSON.parse(strict.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({ error: { code: 'validation_failed', details: [{ path: 'nmae' }] } });
    expect((await m.json<unknown[]>(['receipt', 'list'])).length).toBe(before);
  });
});

describe('unknown members of a batch line', () => {
  async function batchFile(): Promise<string> {
    const template = JSON.parse(await readFile(merchant().receiptFile, 'utf8')) as { products: Record<string, unknown>[]; documentNumber: string } & Record<string, unknown>;
    const stamp = Date.now();
    const line = (n: number, extra: (t: typeof template) => Record<string, unknown>) => JSON.stringify(extra({ ...template, documentNumber: `U-${stamp}-${n}`, products: template.products.map((p) => ({ ...p })) }));
    const lines = [
      line(1, (t) => ({ template: t, email: 'alice@example.com' })),
      line(2, (t) => {
        t.products[0]!.colour = 'red';
        return { template: t, email: 'alice@example.com', stroe: 'S1' };
      }),
      line(3, (t) => ({ template: t, email: 'alice@example.com', customer: { nmae: 'Alice' } })),
    ];
    const file = join(await dirs.make('svc-typo-batch-'), 'receipts.jsonl');
    await writeFile(file, `${lines.join('\n')}\n`);
    return file;
  }
  type Result = { line: number; serviceReceiptId?: string; error?: { code: string; details?: { path: string }[] } };
  const results = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Result)
      .sort((a, b) => a.line - b.line);

  it('a warning naming the line and each path; every line still issued', async () => {
    const m = merchant();
    const r = await runSvc(['receipt', 'send', '--batch', await batchFile()], { home: m.home, env: m.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning: line 2 has members the interface does not name, sent as they are: template.products[0].colour, stroe');
    expect(r.stderr).toContain('warning: line 3 has a member the interface does not name, sent as it is: customer.nmae');
    expect(r.stderr).not.toContain('line 1 ');
    expect(results(r.stdout).map((x) => Boolean(x.serviceReceiptId))).toEqual([true, true, true]);
  });

  it('--strict: those lines fail as elements naming each path, the others are issued, exit 9', async () => {
    const m = merchant();
    const r = await runSvc(['receipt', 'send', '--batch', await batchFile(), '--strict', '--json'], { home: m.home, env: m.env });
    expect(r.exitCode, r.stderr).toBe(9);
    const [one, two, three] = results(r.stdout);
    expect(one?.serviceReceiptId).toBeDefined();
    expect(two).toMatchObject({ line: 2, error: { code: 'validation_failed', details: [{ path: 'template.products[0].colour' }, { path: 'stroe' }] } });
    expect(three).toMatchObject({ line: 3, error: { code: 'validation_failed', details: [{ path: 'customer.nmae' }] } });
    expect(r.stderr).not.toContain('warning:');
  });

  it('a typo on every line of a long batch: the first 20 lines named, then one line for the rest', async () => {
    const m = merchant();
    const template = JSON.parse(await readFile(m.receiptFile, 'utf8')) as Record<string, unknown>;
    const stamp = Date.now();
    const file = join(await dirs.make('svc-typo-many-'), 'receipts.jsonl');
    await writeFile(file, `${Array.from({ length: 25 }, (_, i) => JSON.stringify({ template: { ...template, documentNumber: `M-${stamp}-${i + 1}` }, email: 'alice@example.com', stroe: 'S1' })).join('\n')}\n`);
    const r = await runSvc(['receipt', 'send', '--batch', file], { home: m.home, env: m.env, timeout: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings).toHaveLength(21);
    expect(warnings[19]).toContain('warning: line 20 has a member');
    expect(warnings[20]).toBe('warning: 5 more lines have members the interface does not name (lines 21, 22, 23, 24, 25)');
  }, 60_000);
});
