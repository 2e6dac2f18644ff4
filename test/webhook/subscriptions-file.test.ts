// This machine's subscriptions file, read once per change: a fan-out over 2,000 Grants reads
// it for each Grant. What another process writes is read afresh; what this one writes is kept.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forgetLocally, readLocalSubscriptions } from '../../src/webhook/subscriptions.js';
import { closeHarnesses, harness } from '../commands/receipts-setup.js';

afterEach(closeHarnesses);

const entry = (id: string) => ({ id, name: id, notificationUrl: `http://127.0.0.1:9/${id}`, events: ['RETURN_REQUESTED'], createdAt: '2026-11-26T08:00:00Z', grantId: `grant-${id}` });

describe('readLocalSubscriptions', () => {
  it("sees another process's rewrite of the file, and its own", async () => {
    const h = await harness();
    const dir = join(h.stateDir, 'shop', 'webhooks');
    const file = join(dir, 'subscriptions.json');
    expect(await readLocalSubscriptions(h.f)).toEqual([]);
    await forgetLocally(h.f, []); // makes the directory and an empty file through the lock
    await writeFile(file, JSON.stringify({ version: 1, subscriptions: [entry('a'), entry('b')] }));
    expect((await readLocalSubscriptions(h.f)).map((s) => s.id)).toEqual(['a', 'b']);
    // Another svc rewrites it (same size, so only the identity tells).
    await writeFile(file, JSON.stringify({ version: 1, subscriptions: [entry('c'), entry('d')] }));
    expect((await readLocalSubscriptions(h.f)).map((s) => s.id)).toEqual(['c', 'd']);
    await forgetLocally(h.f, ['c']);
    expect((await readLocalSubscriptions(h.f)).map((s) => s.id)).toEqual(['d']);
    expect((JSON.parse(await readFile(file, 'utf8')) as { subscriptions: { id: string }[] }).subscriptions.map((s) => s.id)).toEqual(['d']);
    // What a caller does with the list it got does not change the next read.
    (await readLocalSubscriptions(h.f)).pop();
    expect((await readLocalSubscriptions(h.f)).map((s) => s.id)).toEqual(['d']);
  });
});
