// A move said as it is. `credit-note reject` of a request a credit note credited: refused
// (exit 7) in words that fit where the request is; still ACCEPTED, the next step is to
// complete it; already COMPLETED, there is none, and the refusal says it is COMPLETED rather
// than sending the merchant to `complete`. A move to the status a request already has changes
// nothing and says so, and a final one asks nothing on a terminal.
import { describe, expect, it } from 'vitest';
import { runSvc, svcEnv } from './helpers.js';
import { milkRequests, queueStatuses, statusChanges, useMerchant } from './merchant.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const { merchant } = useMerchant();

describe('reject of a credited request', () => {
  it('ACCEPTED: exit 7, "mark it done with complete"; COMPLETED: exit 7 saying it is COMPLETED and by which credit note; nothing moves', async () => {
    const m = merchant();
    const [open, closed] = (await milkRequests(m, 2)) as [string, string];
    await m.svc(['credit-note', 'accept', open, closed]);
    await m.svc(['credit-note', 'issue', open, '--yes']);
    await m.svc(['credit-note', 'issue', closed, '--yes', '--complete']);
    const before = await queueStatuses(m);

    const stillOpen = await runSvc(['credit-note', 'reject', open, '--yes'], { home: m.home, env: m.env });
    expect(stillOpen.exitCode, stillOpen.stderr).toBe(7);
    expect(stillOpen.stderr).toMatch(/already has credit note CN-R-2025-000871-\d+-\d+ \(issued, or being submitted\): it cannot be rejected/);
    expect(stillOpen.stderr).toContain(`mark it done with \`svc credit-note complete ${open}\``);

    const done = await runSvc(['credit-note', 'reject', closed, '--yes'], { home: m.home, env: m.env });
    expect(done.exitCode, done.stderr).toBe(7);
    expect(done.stderr).toMatch(new RegExp(`return request ${closed} is COMPLETED, credited by credit note CN-R-2025-000871-\\d+-\\d+: it cannot be moved again`));
    expect(done.stderr).not.toContain('mark it done');
    expect(done.stderr).toContain(`svc credit-note show ${closed}`);

    expect(await queueStatuses(m)).toEqual(before);
    expect(before.get(open)).toBe('ACCEPTED');
    expect(before.get(closed)).toBe('COMPLETED');
  }, 60_000);
});

describe('reject of several requests, one of them credited', () => {
  it('on a terminal: the credited one is refused on its line before the question, which names only the others; n changes nothing, y rejects those two (exit 9)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const [a, credited, c] = (await milkRequests(m, 3)) as [string, string, string];
    // Credited and still PENDING: the customer has a credit note, so it is not rejected.
    await m.svc(['credit-note', 'issue', credited, '--yes']);
    const before = await queueStatuses(m);
    const args = ['credit-note', 'reject', a, credited, c, '--reason', 'arrived opened'];
    const refusal = new RegExp(`^${credited} error: return request ${credited} already has credit note CN-R-2025-000871-\\d+-1 \\(issued, or being submitted\\): it cannot be rejected$`, 'm');

    for (const answer of ['n', 'y'] as const) {
      const term = svcInTerminal(`svc-reject-several-${answer}`, args, svcEnv(m.home, m.env), [200, 40]);
      try {
        await term.waitFor('(y/N)');
        const shown = term.text();
        // Refused first, then asked: the question is about the two it will reject, and no more.
        expect(shown).toMatch(refusal);
        const question = shown.slice(shown.indexOf('? Reject'));
        expect(shown.indexOf(`${credited} error:`)).toBeLessThan(shown.indexOf('? Reject'));
        expect(question).toContain('? Reject these 2 requests? No credit note is issued for any of them. They cannot be moved again.');
        expect(question).toContain(`, request ${a.slice(0, 8)}`);
        expect(question).toContain(`, request ${c.slice(0, 8)}`);
        expect(question).not.toContain(credited.slice(0, 8));
        expect(question).not.toContain('3 requests');
        term.keys(answer, 'Enter');
        await term.waitFor('SVC-EXIT=');
        const text = term.text();
        if (answer === 'n') {
          expect(text).toContain('cancelled: nothing was rejected');
          expect(text).toContain('SVC-EXIT=3');
          expect(text).not.toMatch(/ REJECTED$/m);
        } else {
          expect(text).toMatch(new RegExp(`^${a} REJECTED$`, 'm'));
          expect(text).toMatch(new RegExp(`^${c} REJECTED$`, 'm'));
          // Said once, before the question: not again among the moves.
          expect(text.match(new RegExp(`^${credited} error:`, 'gm'))).toHaveLength(1);
          expect(text).toContain('1 of 3 requests were not moved to REJECTED');
          expect(text).toContain('SVC-EXIT=9');
        }
      } finally {
        term.kill();
      }
      // Read back from the sandbox: declined, nothing moved; accepted, the two and never the credited one.
      const now = await queueStatuses(m);
      expect(statusChanges(before, now)).toEqual(answer === 'n' ? {} : { [a]: 'REJECTED', [c]: 'REJECTED' });
      expect(now.get(credited)).toBe('PENDING');
      // And the reason is kept only for what was rejected.
      const reasons = await Promise.all([a, credited].map(async (id) => /^reason +arrived opened/m.test((await m.svc(['credit-note', 'show', id])).stdout)));
      expect(reasons).toEqual(answer === 'n' ? [false, false] : [true, false]);
    }
  }, 90_000);
});

describe('a move to where a request already is', () => {
  it('accept and complete again: exit 0, "it already was: nothing changed"; show names the credit note; on a terminal, complete of a COMPLETED request asks nothing', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const [a] = (await milkRequests(m, 1)) as [string];
    const first = await m.svc(['credit-note', 'accept', a]);
    expect(first.stdout).toBe(`${a} ACCEPTED\n`);
    const again = await m.svc(['credit-note', 'accept', a]);
    expect(again.stdout).toBe(`${a} ACCEPTED (it already was: nothing changed)\n`);
    await m.svc(['credit-note', 'issue', a, '--yes', '--complete']);
    // `show` names the credit note that closed it, not only that there is nothing to credit.
    const shown = await m.svc(['credit-note', 'show', a]);
    expect(shown.stdout + shown.stderr).toMatch(/is COMPLETED: there is nothing to credit; credited by credit note CN-R-2025-000871-\d+-1 \(1\.28 EUR\)/);
    // The open requests are the pending and the accepted ones: poll's default, not --status PENDING alone.
    expect(shown.stdout + shown.stderr).toContain('see the open requests (pending and accepted) with `svc credit-note poll`');
    const completed = await m.svc(['credit-note', 'complete', a, '--yes']);
    expect(completed.stdout).toBe(`${a} COMPLETED (it already was: nothing changed)\n`);
    const term = svcInTerminal('svc-complete-again', ['credit-note', 'complete', a], svcEnv(m.home, m.env), [80, 24]);
    try {
      await term.waitFor('SVC-EXIT=');
      expect(term.text()).toContain('SVC-EXIT=0');
      expect(term.text()).toContain(`${a} COMPLETED (it already was: nothing changed)`);
      expect(term.text()).not.toContain('It cannot be moved again');
    } finally {
      term.kill();
    }
  }, 60_000);
});

describe('reject --json of a request already rejected', () => {
  it('carries the rejection that stands (reason, when, who) and that the reason given now was not recorded; the ledger keeps the first', async () => {
    const m = merchant();
    const [a] = (await milkRequests(m, 1)) as [string];
    const first = await m.json<{ rejection: { reason: string; rejectedAt: string; rejectedBy: string }; reasonRecorded: boolean }>(['credit-note', 'reject', a, '--reason', 'arrived opened', '--yes']);
    expect(first).toMatchObject({ requestId: a, status: 'REJECTED', rejection: { reason: 'arrived opened' }, reasonRecorded: true });
    expect(first.rejection.rejectedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(first.rejection.rejectedBy).toMatch(/^[^@\s]+@[^@\s]+$/);

    const again = await runSvc(['credit-note', 'reject', a, '--reason', 'changed my mind', '--yes', '--json'], { home: m.home, env: m.env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ requestId: a, status: 'REJECTED', updatedAt: expect.any(String), rejection: first.rejection, reasonRecorded: false });
    expect(again.stderr).toContain('reason "arrived opened"; the reason "changed my mind" was not recorded');
    // Without --reason: the rejection that stands, all the same.
    expect(await m.json(['credit-note', 'reject', a, '--yes'])).toMatchObject({ rejection: first.rejection });
    expect((await m.svc(['credit-note', 'show', a])).stdout).toMatch(/^reason +arrived opened \(/m);
  }, 60_000);
});

describe('accept of a request issue would refuse', () => {
  it('is accepted (exit 0), and a note says issue would refuse it and what is left: --credited-elsewhere', async () => {
    const m = merchant();
    // Milk bought twice: two requests credited take it all, the third asks for what is not left.
    const [a, b, c] = (await milkRequests(m, 3)) as [string, string, string];
    await m.svc(['credit-note', 'accept', a, b]);
    await m.svc(['credit-note', 'issue', a, '--yes']);
    await m.svc(['credit-note', 'issue', b, '--yes']);
    const accepted = await m.svc(['credit-note', 'accept', c]);
    expect(accepted.stdout).toBe(`${c} ACCEPTED\n`);
    expect(accepted.stderr).toMatch(new RegExp(`note: \`svc credit-note issue ${c}\` would refuse it \\(lineItems\\.0 \\(productId 4001234567890\\): quantity 1 is more than the 0 that can still be returned`));
    expect(accepted.stderr).toContain(`\`svc credit-note complete ${c} --credited-elsewhere\``);
    // One that passes gets no note.
    const [d] = (await milkRequests(m, 1)) as [string];
    const fine = await m.svc(['credit-note', 'accept', d]);
    expect(fine.stderr).not.toContain('would refuse');
  }, 60_000);
});

describe('accept of a request issue would refuse, part of which can still be credited', () => {
  it('the note offers what issue offers, `issue ID --item …`, and that command, typed as read, issues; at 60, 80 and 120 columns', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    // Milk bought twice and credited whole by the first request; the bananas are left.
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const trigger = async (...items: string[]) => (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, ...items.flatMap((i) => ['--item', i])])).stdout.trim();
    await m.svc(['credit-note', 'issue', await trigger('4001234567890:2'), '--yes']);
    for (const columns of [60, 80, 120]) {
      const asked = await trigger('4001234567890:1', 'PLU-4011:0.25');
      const term = svcInTerminal(`svc-accept-way-${columns}`, ['credit-note', 'accept', asked], svcEnv(m.home, m.env), [columns, 30]);
      let way: string | undefined;
      try {
        await term.waitFor('SVC-EXIT=');
        const flat = term.text().replace(/\s+/g, ' ');
        expect(flat, `${columns} columns:\n${term.text()}`).toContain('SVC-EXIT=0');
        expect(flat, `${columns} columns:\n${term.text()}`).toContain(`note: \`svc credit-note issue ${asked}\` would refuse it (lineItems.0 (productId 4001234567890): quantity 1 is more than the 0 that can still be returned`);
        // The same way forward issue's own refusal gives, not a third wording.
        way = new RegExp(`credit only what can still be returned with \`(svc credit-note issue ${asked} --item PLU-4011:0\\.25)\``).exec(flat)?.[1];
        expect(way, `${columns} columns:\n${term.text()}`).toBeDefined();
        expect(flat).toContain(`settle it another way and run \`svc credit-note complete ${asked} --credited-elsewhere\``);
      } finally {
        term.kill();
      }
      if (columns === 60) {
        // Followed as written (with --yes, as off a terminal), it issues the credit note for the bananas.
        const followed = await runSvc([...way!.split(' ').slice(1), '--yes'], { home: m.home, env: m.env });
        expect(followed.exitCode, followed.stderr).toBe(0);
        expect(followed.stdout + followed.stderr).toMatch(/CN-R-2025-000871-\d+-2/);
      }
    }
  }, 90_000);
});

describe('a partial accept of a part issue would refuse', () => {
  it('accept --item: the same note as a whole accept, for the part accepted; a part that passes gets none', async () => {
    const m = merchant();
    // Milk bought twice, both credited by the first request: the second's milk is not left, its water is.
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const trigger = async (...items: string[]) => (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, ...items.flatMap((i) => ['--item', i])])).stdout.trim();
    const first = await trigger('4001234567890:2');
    const [second, third] = [await trigger('4001234567890:1', '4001111222333:1'), await trigger('4001234567890:1', '4001111222333:1')];
    await m.svc(['credit-note', 'issue', first, '--yes']);
    const accepted = await m.svc(['credit-note', 'accept', second, '--item', '4001234567890:1']);
    expect(accepted.stdout).toBe(`${second} PARTIALLY_ACCEPTED (accepted part: 4001234567890:1, recorded)\n`);
    expect(accepted.stderr).toMatch(new RegExp(`note: \`svc credit-note issue ${second}\` would refuse it \\(lineItems\\.0 \\(productId 4001234567890\\): quantity 1 is more than the 0 that can still be returned`));
    expect(accepted.stderr).toContain(`; accepted in part, it can no longer be rejected: settle it another way and run \`svc credit-note complete ${second} --credited-elsewhere\``);
    const water = await m.svc(['credit-note', 'accept', third, '--item', '4001111222333:1']);
    expect(water.stderr).not.toContain('would refuse');
  }, 60_000);
});

describe('issue --complete again, on the machine that issued it', () => {
  it('says the credit note was issued here, and when; not "elsewhere"', async () => {
    const m = merchant();
    const [a] = (await milkRequests(m, 1)) as [string];
    const first = await m.svc(['credit-note', 'issue', a, '--complete', '--yes']);
    const again = await m.svc(['credit-note', 'issue', a, '--complete', '--yes']);
    expect(again.stderr).toMatch(new RegExp(`request ${a}: already credited by CN-R-2025-000871-\\d+-1 \\(issued here on \\d{4}-\\d{2}-\\d{2}T[^)]*\\); completed`));
    expect(again.stderr).not.toContain('elsewhere');
    expect(again.stdout).toBe(first.stdout);
    const json = await m.json<{ issuedHere: boolean; message: string }>(['credit-note', 'issue', a, '--complete', '--yes']);
    expect(json.message).toContain('(issued here on ');
  }, 60_000);
});

describe('what a move asks of the service', () => {
  it('accept lists the queue once: the item read before the move is the one checked after it (GET /credit-note counted in --debug)', async () => {
    const m = merchant();
    const [a] = (await milkRequests(m, 1)) as [string];
    const accepted = await runSvc(['credit-note', 'accept', a, '--debug'], { home: m.home, env: m.env });
    expect(accepted.exitCode, accepted.stderr).toBe(0);
    expect(accepted.stdout).toContain(`${a} ACCEPTED`);
    const listings = accepted.stderr.split('\n').filter((line) => /^> GET \S+\/credit-note$/.test(line));
    expect(listings, accepted.stderr).toHaveLength(1);
    expect((await queueStatuses(m)).get(a)).toBe('ACCEPTED');
  }, 60_000);
});

describe('a move made elsewhere while the question is open', () => {
  it('issue --complete on a terminal: a colleague completes the request (credited elsewhere) before the answer; the answer issues nothing, says so, exit 7', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const [a] = (await milkRequests(m, 1)) as [string];
    await m.svc(['credit-note', 'accept', a]);
    const creditNotes = async () => (await m.json<{ kind: string }[]>(['sandbox', 'deliveries'])).filter((d) => d.kind === 'CREDIT_NOTE').length;
    const before = await creditNotes();
    const term = svcInTerminal('svc-issue-then-colleague', ['credit-note', 'issue', a, '--complete'], svcEnv(m.home, m.env), [200, 30]);
    try {
      await term.waitFor('It cannot be moved again. (y/N)');
      // The colleague, on another terminal: settled another way, closed with no credit note.
      await m.svc(['credit-note', 'complete', a, '--credited-elsewhere', '--yes']);
      term.keys('y', 'Enter');
      await term.waitFor('SVC-EXIT=');
      const text = term.text();
      expect(text).toContain('SVC-EXIT=7');
      expect(text).toContain(`request ${a} is COMPLETED now (moved elsewhere while the question was open): no credit note was issued`);
      expect(text).not.toMatch(/credit note CN-\S+ issued/);
    } finally {
      term.kill();
    }
    expect(await creditNotes()).toBe(before);
    expect((await queueStatuses(m)).get(a)).toBe('COMPLETED');
  }, 60_000);
});
