// `svc credit-note show ID` of a request `issue` would refuse: its checks end with the way
// forward `issue`'s own refusal names (here `issue ID --item …` for what can still be
// returned), which works typed as read; its `line N` rows name the products this profile's
// record of the receipt knows, as a confirmation does. In tmux at 60, 80 and 120 columns.
import { describe, expect, it } from 'vitest';
import { makeSvcHome, runSvc, svcEnv } from './helpers.js';
import { useMerchant } from './merchant.js';
import { loginAutoApproved } from './oauth-fixture.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const { merchant, dirs } = useMerchant();

describe('show of a request issue would refuse, part of which can still be credited', () => {
  it('ends with the working command, `issue ID --item …`, and names the products in its line rows; at 60, 80 and 120 columns', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    // Milk bought twice and credited whole by the first request; the bananas are left.
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const trigger = async (...items: string[]) => (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, ...items.flatMap((i) => ['--item', i])])).stdout.trim();
    await m.svc(['credit-note', 'issue', await trigger('4001234567890:2'), '--yes']);
    const asked = await trigger('4001234567890:1', 'PLU-4011:0.5');
    await m.svc(['credit-note', 'accept', asked]);

    let way: string | undefined;
    for (const columns of [60, 80, 120]) {
      const term = svcInTerminal(`svc-show-way-${columns}`, ['credit-note', 'show', asked], svcEnv(m.home, m.env), [columns, 60]);
      try {
        await term.waitFor('SVC-EXIT=');
        const screen = term.text();
        const flat = screen.replace(/\s+/g, ' ');
        expect(flat, `${columns} columns:\n${screen}`).toContain('SVC-EXIT=0');
        expect(flat, `${columns} columns:\n${screen}`).toMatch(/line 1 1 × Whole milk 3\.5% 1 l \(4001234567890\) · DAMAGED line 2 0\.5 × Bananas \(PLU-4011\) · DAMAGED/);
        expect(flat).toContain('checks: `issue` would refuse it: lineItems.0 (productId 4001234567890): quantity 1 is more than the 0 that can still be returned');
        // The checks end with the way forward, the same as issue's refusal names.
        const found = new RegExp(`credit only what can still be returned with \`(svc credit-note issue ${asked} --item PLU-4011:0\\.5)\`, settle it another way and run \`svc credit-note complete ${asked} --credited-elsewhere\` SVC-EXIT=0`).exec(flat)?.[1];
        expect(found, `${columns} columns:\n${screen}`).toBeDefined();
        way = found;
        for (const line of screen.split('\n')) expect(line.length, line).toBeLessThanOrEqual(columns);
      } finally {
        term.kill();
      }
    }
    // Followed as written (with --yes, as off a terminal), it issues the credit note for the bananas.
    const followed = await runSvc([...way!.split(' ').slice(1), '--yes'], { home: m.home, env: m.env });
    expect(followed.exitCode, followed.stderr).toBe(0);
    expect(followed.stdout + followed.stderr).toMatch(/CN-R-2025-000871-\d+-2/);
  }, 90_000);
});

describe('show of a request no key here opens', () => {
  it('exit 4 (no credential that opens it), not 1; the hint names the keys held and SVC_PRIVATE_KEY_FILE', async () => {
    const m = merchant();
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const requestId = (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1'])).stdout.trim();
    // A second machine logged in to the same company, without the merchant's private key.
    const other = await makeSvcHome(dirs);
    const { result } = await loginAutoApproved(other, m.sandbox.url, m.fixture);
    expect(result.exitCode, result.stderr).toBe(0);
    const shown = await runSvc(['credit-note', 'show', requestId], { home: other, env: m.env });
    expect(shown.exitCode, shown.stderr).toBe(4);
    expect(shown.stdout).toBe('');
    expect(shown.stderr).toContain(`error: cannot read return request ${requestId}: cannot decrypt`);
    expect(shown.stderr).toMatch(/^hint: `svc keys list` shows the keys this profile holds; .*SVC_PRIVATE_KEY_FILE=key\.pem/m);
    const json = await runSvc(['credit-note', 'show', requestId, '--json'], { home: other, env: m.env });
    expect(json.exitCode).toBe(4);
    expect(JSON.parse(json.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({ error: { exitCode: 4, hint: expect.stringContaining('svc keys list') } });
  }, 60_000);
});

describe('a PENDING request asking more than is left: the part that can still be credited is offered', () => {
  it('show and issue --dry-run offer `issue ID --item …` for what is left (not "fix the receipt record"); run as printed, it credits that part and completes the request', async () => {
    const m = merchant();
    // Milk bought twice; one already credited by another request: the second asks two.
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const trigger = async (item: string) => (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', item])).stdout.trim();
    await m.svc(['credit-note', 'issue', await trigger('4001234567890:1'), '--yes']);
    const asked = await trigger('4001234567890:2');

    const shown = await runSvc(['credit-note', 'show', asked], { home: m.home, env: m.env });
    expect(shown.exitCode, shown.stderr).toBe(0);
    const dry = await runSvc(['credit-note', 'issue', asked, '--dry-run'], { home: m.home, env: m.env });
    expect(dry.exitCode, dry.stderr).toBe(2);
    const commands = (text: string) => [...text.replace(/\s+/g, ' ').matchAll(/`(svc credit-note issue [^`]+)`/g)].map((x) => x[1]!);
    for (const text of [shown.stdout + shown.stderr, dry.stderr]) {
      expect(text).toContain('quantity 2 is more than the 1 that can still be returned');
      expect(text).not.toContain('fix the receipt record');
      expect(text).toContain(`reject it with \`svc credit-note reject ${asked}\``);
      expect(commands(text), text).toEqual([`svc credit-note issue ${asked} --item 4001234567890:1 --complete`]);
    }
    const followed = await runSvc([...commands(dry.stderr)[0]!.split(' ').slice(1), '--yes'], { home: m.home, env: m.env });
    expect(followed.exitCode, followed.stderr).toBe(0);
    expect(followed.stderr).toContain(`request ${asked} is COMPLETED`);
    const after = await m.json<{ status: string }>(['credit-note', 'show', asked]);
    expect(after.status).toBe('COMPLETED');
  }, 90_000);
});
