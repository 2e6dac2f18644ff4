// `svc sandbox trigger outage`: the sandbox answers the next N API requests 503 with a
// Retry-After, as a service restarting does. svc's retries ride it out (docs/networks.md):
// a receipt issued through two 503s is issued once, a longer outage ends in exit 8 after
// 4 attempts, the sandbox's own endpoints keep answering, and --requests 0 ends it.
import { describe, expect, it } from 'vitest';
import { runSvc } from './helpers.js';
import { useMerchant } from './merchant.js';

const { merchant } = useMerchant();

const outageLines = () => merchant().sandbox.stderr().split('\n').filter((l) => /outage: [A-Z]+ \S+ answered 503/.test(l));

describe('sandbox trigger outage', () => {
  it('two 503s on the way: the receipt is issued once, and a re-run finds it', async () => {
    const m = merchant();
    const before = outageLines().length;
    const trigger = await m.svc(['sandbox', 'trigger', 'outage', '--requests', '2']);
    expect(trigger.stdout).toContain('the next 2 requests to the API are answered 503, Retry-After 1 s');
    const file = await m.newReceiptFile();
    const first = await m.svc(['receipt', 'send', '--file', file, '--email', 'alice@example.com']);
    await m.sandbox.waitForStderr(/answered 503 \(0 more to come\)/);
    expect(outageLines().length - before).toBe(2);
    const again = await m.svc(['receipt', 'send', '--file', file, '--email', 'alice@example.com']);
    expect(again.stdout.trim()).toBe(first.stdout.trim());
  });

  it('longer than svc waits: exit 8 after 4 attempts; its own endpoints still answer; --requests 0 ends it', async () => {
    const m = merchant();
    await m.svc(['sandbox', 'trigger', 'outage', '--requests', '50', '--retry-after', '0']);
    const failed = await runSvc(['credit-note', 'poll'], { home: m.home, env: m.env });
    expect(failed.exitCode, failed.stderr).toBe(8);
    expect(failed.stderr).toMatch(/after 4 attempts/);
    // The service's words, then svc's, each a clause of its own (not "retry after 0 s after 4 attempts").
    expect(failed.stderr).toContain('(sandbox trigger outage); retry after 0 s; gave up after 4 attempts (GET /credit-note) [503 server_error]');
    await m.svc(['sandbox', 'outbox']);
    const over = await m.svc(['sandbox', 'trigger', 'outage', '--requests', '0']);
    expect(over.stdout).toContain('the outage is over');
    await m.svc(['credit-note', 'poll']);
  });

  it('a count that is not a whole number: exit 2 naming the flag', async () => {
    const m = merchant();
    const bad = await runSvc(['sandbox', 'trigger', 'outage', '--requests', 'lots'], { home: m.home, env: m.env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--requests: "lots" is not a whole number from 0 to 1000');
  });
});
