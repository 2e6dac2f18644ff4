// Shell completion of request IDs keeps every company's requests: a poll replaces what was
// kept of the queues it listed whole, and only those. `poll --grant foods` after a poll of the
// default company leaves the default's PENDING requests offered to `accept <Tab>`, and a poll
// narrowed by --status leaves the requests of other statuses (they used to vanish: completion
// followed "the last poll" alone).
import { describe, expect, it } from 'vitest';
import { runSvc } from './helpers.js';
import { useMerchant, type Merchant } from './merchant.js';
import { MILK, requestsOn } from './queue-screen-kit.js';

const { merchant } = useMerchant();

async function offered(m: Merchant, path: string): Promise<string[]> {
  const done = await runSvc(['__complete', '--', path, 'request-id'], { home: m.home, env: m.env });
  expect(done.exitCode, done.stderr).toBe(0);
  return done.stdout.split('\n').filter(Boolean);
}

describe('completion of request IDs across companies', () => {
  it("a poll of another company, or of one status, leaves the default company's requests offered", async () => {
    const m = merchant();
    const [own] = (await requestsOn(m, [MILK])).ids as [string];
    const [foods] = (await requestsOn(m, [MILK], { args: ['--grant', 'foods'] })).ids as [string];

    await m.svc(['credit-note', 'poll', '--no-decrypt']);
    expect(await offered(m, 'credit-note accept')).toEqual([own]);

    await m.svc(['credit-note', 'poll', '--grant', 'foods', '--no-decrypt']);
    expect((await offered(m, 'credit-note accept')).sort()).toEqual([own, foods].sort());

    // Narrowed by --status: what it did not list is not taken as gone.
    await m.svc(['credit-note', 'poll', '--status', 'COMPLETED', '--no-decrypt']);
    expect((await offered(m, 'credit-note accept')).sort()).toEqual([own, foods].sort());

    // A move, then a whole poll of the default company: the status it lists is the one kept.
    await m.svc(['credit-note', 'reject', own, '--reason', 'not ours', '--yes']);
    await m.svc(['credit-note', 'poll', '--no-decrypt']);
    expect(await offered(m, 'credit-note accept')).toEqual([foods]);
    expect(await offered(m, 'credit-note show')).toEqual(expect.arrayContaining([own, foods]));
  }, 60_000);
});
