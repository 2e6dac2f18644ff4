// What the guides promise of --forward-to, checked against what svc sends: processing is
// exactly once per delivery, a forward at least once (a drain that ran out of time aborts a
// forward the app may have taken; it is sent again at the next start), and the app
// deduplicates on the delivery ID header each forward carries.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StoredDelivery } from '../../src/webhook/journal.js';
import { forwardHeadersOf } from '../../src/webhook/routes.js';

const root = resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(resolve(root, file), 'utf8').replace(/\s+/g, ' ');

describe('forwards in the guides', () => {
  const delivery = { entry: { id: 'a'.repeat(64), event: 'RETURN_REQUESTED' }, raw: Buffer.from('{}'), headers: {} } as unknown as StoredDelivery;
  const headers = forwardHeadersOf(delivery);
  const idHeader = Object.keys(headers).find((name) => headers[name] === delivery.entry.id)!;

  it.each(['docs/webhooks.md', 'docs/webhook-listener-service.md', 'docs/interface-decisions.md'])('%s: forwards at least once, deduplicated on the delivery ID header svc sends; exactly once only of processing', (file) => {
    const text = read(file);
    expect(idHeader).toBe('svc-delivery-id');
    expect(text.toLowerCase()).toContain(idHeader);
    expect(text).toMatch(/forwards? (are|is) at least once|, at least once: a forward the drain cut short/);
    expect(text).toMatch(/deduplicates? on `Svc-Delivery-Id`|deduplicate on the `Svc-Delivery-Id`/);
    // "processes after answering, exactly once" said of the whole, forwards included, is not true.
    expect(text).not.toMatch(/processes after answering, exactly once,/);
  });
});
