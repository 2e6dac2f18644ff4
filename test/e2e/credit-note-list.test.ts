// `svc credit-note list`: the credit notes the ledger holds, read back against what the
// sandbox's service delivered (each credit note reached the customer's device, decrypted to
// the hash it was submitted with), with the receipt each
// credits, its amount, who issued it, newest first; --receipt by document number or ID;
// on a terminal of 60, 80 and 120 columns every row fits and nothing is cut to "…".
import { userInfo, hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/width.js';
import { runSvc, svcEnv } from './helpers.js';
import { useMerchant, type Merchant } from './merchant.js';
import { MILK, requestsOn } from './queue-screen-kit.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const { merchant } = useMerchant();

interface Listed {
  serviceReceiptId: string;
  documentNumber: string;
  requestId: string;
  receipt: { serviceReceiptId: string; documentNumber: string | null };
  totalAmount: number;
  currency: string;
  issuedAt: string;
  issuedBy: string | null;
}

async function issued(m: Merchant, grant: readonly string[] = []): Promise<{ receipt: string; request: string; creditNote: string }> {
  const { receipt, ids } = await requestsOn(m, [MILK], { args: grant });
  const request = ids[0]!;
  const done = await m.svc(['credit-note', 'issue', request, '--yes', ...grant]);
  return { receipt, request, creditNote: done.stdout.trim() };
}

async function screenAt(m: Merchant, width: number, args: readonly string[]): Promise<string[]> {
  const term = svcInTerminal(`cn-list-${width}`, args, svcEnv(m.home, m.env), [width, 40]);
  try {
    await term.waitFor(/SVC-EXIT=\d+/, `the end of svc ${args.join(' ')}`);
    const text = term.text();
    expect(text, text).toContain('SVC-EXIT=0');
    return text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('SVC-EXIT='));
  } finally {
    term.kill();
  }
}

describe('credit-note list', () => {
  it('lists what was issued, newest first, as the service took it; --receipt narrows it', async () => {
    const m = merchant();
    const empty = await runSvc(['credit-note', 'list'], { home: m.home, env: m.env });
    expect(empty.exitCode).toBe(0);
    expect(empty.stderr).toContain("no credit notes in this machine's ledger yet: see `svc credit-note issue`");

    const first = await issued(m);
    const second = await issued(m);
    const listed = await m.json<Listed[]>(['credit-note', 'list']);
    expect(listed.map((l) => l.serviceReceiptId)).toEqual([second.creditNote, first.creditNote]);

    // Read back: each is a credit note the service delivered to the customer's device.
    const delivered = await m.json<{ serviceReceiptId: string; kind: string; hashMatches?: boolean }[]>(['sandbox', 'deliveries']);
    for (const l of listed) expect(delivered.find((d) => d.serviceReceiptId === l.serviceReceiptId), JSON.stringify(delivered)).toMatchObject({ kind: 'CREDIT_NOTE', hashMatches: true });
    const receipts = await m.json<{ serviceReceiptId: string; templateRequest: { documentNumber: string } }[]>(['receipt', 'list']);
    const numberOf = (id: string) => receipts.find((r) => r.serviceReceiptId === id)?.templateRequest.documentNumber;
    expect(listed[1]).toMatchObject({ requestId: first.request, receipt: { serviceReceiptId: first.receipt, documentNumber: numberOf(first.receipt) }, issuedBy: `${userInfo().username}@${hostname()}` });
    expect(listed[1]!.documentNumber).toMatch(/^CN-/);
    expect(listed[1]!.totalAmount).toBeGreaterThan(0);

    // By document number, and by a prefix of the ID.
    expect((await m.json<Listed[]>(['credit-note', 'list', '--receipt', numberOf(first.receipt)!])).map((l) => l.serviceReceiptId)).toEqual([first.creditNote]);
    expect((await m.json<Listed[]>(['credit-note', 'list', '--receipt', second.receipt.slice(0, 10)])).map((l) => l.serviceReceiptId)).toEqual([second.creditNote]);
    const none = await runSvc(['credit-note', 'list', '--receipt', 'R-NONE-1'], { home: m.home, env: m.env });
    expect(none.exitCode).toBe(0);
    expect(none.stderr).toContain("no credit notes of receipt R-NONE-1 in this machine's ledger");

    // A pipe gets one tab-separated row each: credit note, receipt, amount first.
    const piped = await m.svc(['credit-note', 'list']);
    const rows = piped.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(rows.map((r) => r[0])).toEqual(listed.map((l) => l.documentNumber));
    expect(rows[1]![1]).toBe(numberOf(first.receipt));
  }, 60_000);

  it("--grant narrows credit-note list and receipt list to one company's; without it every company's", async () => {
    const m = merchant();
    const foods = await issued(m, ['--grant', 'foods']);
    const own = await issued(m);
    // The merchant of this file issued others before: each list is checked by what it holds and what it leaves out.
    const all = (await m.json<Listed[]>(['credit-note', 'list'])).map((l) => l.serviceReceiptId);
    expect(all).toEqual(expect.arrayContaining([foods.creditNote, own.creditNote]));
    const ofFoods = await m.json<Listed[]>(['credit-note', 'list', '--grant', 'foods']);
    const ofOwn = await m.json<Listed[]>(['credit-note', 'list', '--grant', 'EU000000001']);
    expect(ofFoods.map((l) => l.serviceReceiptId)).toContain(foods.creditNote);
    expect(ofFoods.map((l) => l.serviceReceiptId)).not.toContain(own.creditNote);
    expect(ofOwn.map((l) => l.serviceReceiptId)).toContain(own.creditNote);
    expect(ofOwn.map((l) => l.serviceReceiptId)).not.toContain(foods.creditNote);
    expect(ofFoods.length + ofOwn.length).toBe(all.length);
    const receipts = (await m.json<{ serviceReceiptId: string }[]>(['receipt', 'list', '--grant', 'foods'])).map((r) => r.serviceReceiptId);
    expect(receipts).toContain(foods.receipt);
    expect(receipts).not.toContain(own.receipt);
    // A selector that fits no company is refused as everywhere (exit 6), not an empty list.
    const none = await runSvc(['credit-note', 'list', '--grant', 'no such company'], { home: m.home, env: m.env });
    expect(none.exitCode, none.stderr).toBe(6);
    expect(none.stderr).toContain('no Grant of this profile fits "no such company" (--grant)');
  }, 60_000);

  it("fits 60, 80 and 120 columns: rows whole or columns left out and named, never cut; two companies' rows keep their company", async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    await issued(m, ['--grant', 'foods']);
    const { creditNote } = await issued(m);
    const [listed] = await m.json<Listed[]>(['credit-note', 'list']);
    for (const width of [60, 80, 120]) {
      const lines = await screenAt(m, width, ['credit-note', 'list']);
      for (const line of lines) expect(displayWidth(line), `${line}\n${lines.join('\n')}`).toBeLessThanOrEqual(width);
      const text = lines.join('\n');
      expect(text, text).toContain(listed!.documentNumber);
      expect(text, text).not.toMatch(/[A-Z0-9-]{2}…/);
      // Document numbers recur across companies: the company is the last column to go.
      expect(text, text).toContain("Example Retail Ltd");
      expect(text, text).toContain("Sample Foods GmbH");
      if (width === 120) expect(text, text).toContain(creditNote.slice(0, 8));
    }
  }, 90_000);
});
