// What the queue-screen tests share: return requests triggered straight on the sandbox (one
// HTTP request each, no svc process), and reading the screen in tmux (its lines, the cursor's
// row, a request's row, waiting for what should show).
import { expect } from 'vitest';
import { runSvc, type SvcHome } from './helpers.js';
import type { Merchant } from './merchant.js';
import type { Terminal } from './tmux.js';

/** One of the fixture's products, returned once. */
export const MILK = '4001234567890:1';

/**
 * Return requests (one per `PRODUCT:QTY`, oldest first) on a new receipt sent to
 * alice@example.com with `args` added (`--grant`, another `--email`), by `m`'s svc or by
 * another machine's (`home`).
 */
export async function requestsOn(m: Merchant, items: readonly string[], opts: { args?: readonly string[]; home?: SvcHome } = {}): Promise<{ receipt: string; ids: string[] }> {
  const sent = await runSvc(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com', ...(opts.args ?? []), '--json'], { home: opts.home ?? m.home, env: m.env });
  expect(sent.exitCode, sent.stderr).toBe(0);
  const { serviceReceiptId } = JSON.parse(sent.stdout) as { serviceReceiptId: string };
  return { receipt: serviceReceiptId, ids: await triggerReturns(m, serviceReceiptId, items) };
}

/** Return requests on the receipt `serviceReceiptId`, one per `PRODUCT:QTY`, oldest first. */
export async function triggerReturns(m: Merchant, serviceReceiptId: string, items: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const item of items) {
    const [productId, quantity] = item.split(':') as [string, string];
    const response = await fetch(`${m.sandbox.url}/sandbox/receipts/${serviceReceiptId}/return-requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ productId, quantity: Number(quantity) }] }),
    });
    expect(response.status).toBe(201);
    ids.push(((await response.json()) as { requestId: string }).requestId);
    await new Promise((r) => setTimeout(r, 10));
  }
  return ids;
}

export const screenLines = (term: Terminal): string[] => term.text().replace(/\n+$/, '').split('\n');
export const cursorRow = (term: Terminal): string | undefined => screenLines(term).find((l) => l.startsWith('>'));
/** The list row of a request (by its 8-character prefix), not a status line naming it. */
export const rowOf = (term: Terminal, id: string): string | undefined => screenLines(term).find((l) => l.includes(id.slice(0, 8)) && /PENDING|ACCEPTED|REJECTED|COMPLETED/.test(l));

export async function untilShown(what: () => boolean, label: string, term: Terminal, timeoutMs = 10_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !what(); ) {
    if (Date.now() > deadline) throw new Error(`${label} never showed; the terminal:\n${term.text()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
