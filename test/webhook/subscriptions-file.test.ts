// This machine's subscriptions: a row each in subscriptions.db, read whole once per change.
// What another process writes is read afresh; what this one writes is kept as written. The
// whole-file records of an older svc (subscriptions.json) are taken over once, on first use.
import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forgetLocally, readLocalSubscriptions } from '../../src/webhook/subscriptions.js';
import { openSubscriptionFile } from '../../src/store/subscription-file.js';
import { closeHarnesses, harness } from '../commands/receipts-setup.js';

afterEach(closeHarnesses);

const entry = (id: string) => ({ id, name: id, notificationUrl: `http://127.0.0.1:9/${id}`, events: ['RETURN_REQUESTED'], createdAt: '2026-11-26T08:00:00Z', grantId: `grant-${id}` });
const row = (id: string) => ({ id, grantId: `grant-${id}`, notificationUrl: `http://127.0.0.1:9/${id}`, record: JSON.stringify(entry(id)) });

describe('readLocalSubscriptions', () => {
  it("takes over an older svc's subscriptions.json once, then sees another process's writes and its own", async () => {
    const h = await harness();
    const dir = join(h.stateDir, 'shop', 'webhooks');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'subscriptions.json'), JSON.stringify({ version: 1, subscriptions: [entry('a'), { ...entry('b'), grantId: undefined, addedByNewer: 1 }] }));
    expect(await readLocalSubscriptions(h.f)).toEqual([entry('a'), { ...entry('b'), grantId: undefined, addedByNewer: 1 }].map((e) => JSON.parse(JSON.stringify(e))));
    // Another svc process keeps one and forgets one.
    const other = await openSubscriptionFile(join(dir, 'subscriptions.db'), () => {
      throw new Error('taken over already');
    });
    other.put([row('c')]);
    other.remove(['a']);
    expect((await readLocalSubscriptions(h.f)).map((s) => s.id)).toEqual(['b', 'c']);
    await forgetLocally(h.f, ['c']);
    expect((await readLocalSubscriptions(h.f)).map((s) => s.id)).toEqual(['b']);
    expect(other.all().map((r) => r.id)).toEqual(['b']);
    other.close();
    // The old file is not read again: what was forgotten stays forgotten.
    await writeFile(join(dir, 'subscriptions.json'), JSON.stringify({ version: 1, subscriptions: [entry('a')] }));
    expect((await readLocalSubscriptions(h.f)).map((s) => s.id)).toEqual(['b']);
    // What a caller does with the list it got does not change the next read.
    (await readLocalSubscriptions(h.f)).pop();
    expect((await readLocalSubscriptions(h.f)).map((s) => s.id)).toEqual(['b']);
  });

  it('refuses a damaged subscriptions.json of an older svc, naming it, and takes nothing over', async () => {
    const h = await harness();
    const dir = join(h.stateDir, 'shop', 'webhooks');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'subscriptions.json'), '{"version":1,"subscriptions":[');
    await expect(readLocalSubscriptions(h.f)).rejects.toThrow(/subscriptions\.json is damaged/);
  });
});
