// What the queue-screen tests share: return requests triggered straight on the sandbox (one
// HTTP request each, no svc process), and reading the screen in tmux (its lines, the cursor's
// row, a request's row, waiting for what should show).
import { expect } from 'vitest';
import type { Merchant } from './merchant.js';
import type { Terminal } from './tmux.js';

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
