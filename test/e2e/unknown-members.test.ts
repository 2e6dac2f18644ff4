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
