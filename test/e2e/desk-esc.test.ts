// Esc at the support desk (issue 30): every question of the queue screen and of triage is
// left with Esc as a cancel, never as an answer: nothing moves, what was marked and typed
// stays. And `/` finds a request by the customer's phone too. In tmux, keys typed ahead.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { svcEnv, runSvc } from './helpers.js';
import { queueStatuses, useMerchant, type Merchant } from './merchant.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';
import { rowOf, screenLines, triggerReturns, untilShown } from './queue-screen-kit.js';

const { merchant, dirs } = useMerchant();

/** One return request of a Whole milk on a new receipt sent with `more`'s customer. */
async function requestOn(m: Merchant, more: string[] = []): Promise<{ receipt: string; id: string }> {
  const sent = await runSvc(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com', ...more, '--json'], { home: m.home, env: m.env });
  expect(sent.exitCode, sent.stderr).toBe(0);
  const { serviceReceiptId } = JSON.parse(sent.stdout) as { serviceReceiptId: string };
  const [id] = (await triggerReturns(m, serviceReceiptId, ['4001234567890:1'])) as [string];
  return { receipt: serviceReceiptId, id };
}

const lines = screenLines;
const until = untilShown;

describe('Esc at the support desk', () => {
  it('screen: Esc leaves the reason prompt, the reject, issue and complete questions as a cancel; nothing moved, the mark and the reason kept (80 and 60 columns)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { receipt, id } = await requestOn(m);
    for (const width of [80, 60]) {
      const term = svcInTerminal(`svc-desk-esc-${width}`, ['credit-note', 'poll', '--watch', '--interval', '600', '--all', '--receipt', receipt], { ...svcEnv(m.home, m.env), NO_COLOR: '1' }, [width, 24]);
      try {
        await until(() => rowOf(term, id)?.startsWith('>') === true, 'the list', term);
        term.keys('Space');
        await until(() => rowOf(term, id)?.startsWith('>*') === true, 'the row marked', term);
        // The reason prompt: Esc, with nothing typed.
        term.keys('r');
        await term.waitFor('Why reject');
        term.keys('Escape');
        // Said as the question's Esc says it: what did not happen.
        await until(() => lines(term).at(-1)?.startsWith('cancelled: nothing was rejected') === true && rowOf(term, id)?.includes('PENDING') === true, 'the reason prompt left', term);
        expect(rowOf(term, id)?.startsWith('>*')).toBe(true);
        // The question after the reason: Esc is not an answer (neither y nor the default).
        term.keys('r');
        // Typed once the prompt is up: keys that arrive while the screen still holds the
        // terminal are the screen's.
        await until(() => (term.text().match(/Why reject/g) ?? []).length >= 1 && lines(term).some((l) => l.startsWith('? Why reject')), 'the reason prompt again', term);
        term.type('dented');
        term.keys('Enter');
        await term.waitFor(/\(y\/N\)/);
        term.keys('Escape');
        await until(() => lines(term).at(-1)?.startsWith('cancelled: nothing was rejected') === true, 'the reject question left', term);
        expect(rowOf(term, id)).toMatch(/^>\*.*PENDING/);
        // The reason typed is still offered.
        term.keys('r');
        await term.waitFor(/Why reject[^?]*\?[^?]*\(dented\)/);
        term.keys('Escape');
        await until(() => lines(term).filter((l) => l.startsWith('cancelled')).length > 0 && rowOf(term, id) !== undefined, 'the reason prompt left again', term);
        term.keys('q');
        await term.waitFor('SVC-EXIT=0');
      } finally {
        term.kill();
      }
      expect((await queueStatuses(m)).get(id)).toBe('PENDING');
    }
    // Accepted, the issue question (its preview) left with Esc: no credit note.
    expect((await m.svc(['credit-note', 'accept', id])).exitCode).toBe(0);
    const term = svcInTerminal('svc-desk-esc-issue', ['credit-note', 'poll', '--watch', '--interval', '600', '--all', '--receipt', receipt], { ...svcEnv(m.home, m.env), NO_COLOR: '1' }, [80, 30]);
    try {
      await until(() => rowOf(term, id)?.includes('ACCEPTED') === true, 'the list', term);
      term.keys('i');
      await term.waitFor(/\(y\/N\)/);
      term.keys('Escape');
      await until(() => lines(term).at(-1)?.startsWith('cancelled: no credit note was issued') === true, 'the issue question left', term);
      expect(rowOf(term, id)).toContain('ACCEPTED');
      term.keys('c');
      await until(() => /Complete[\s\S]*\(y\/N\)/.test(term.text()), 'the complete question', term);
      term.keys('Escape');
      await until(() => lines(term).at(-1)?.startsWith('cancelled: nothing was completed') === true, 'the complete question left', term);
      expect(rowOf(term, id)).toContain('ACCEPTED');
      term.keys('q');
      await term.waitFor('SVC-EXIT=0');
    } finally {
      term.kill();
    }
    expect((await queueStatuses(m)).get(id)).toBe('ACCEPTED');
  }, 60_000);

  it('triage: Esc at the reason prompt, the reject question and the part prompt (products named) is a cancel: back at the same request, nothing rejected (80 columns)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { receipt, id } = await requestOn(m);
    const term = svcInTerminal('svc-desk-esc-triage', ['credit-note', 'triage', '--receipt', receipt], svcEnv(m.home, m.env), [80, 40]);
    /** Back at the request: its key prompt after the last `marker`, nothing moved. */
    const askedAgainAfter = (marker: string) => {
      const text = term.text();
      return text.lastIndexOf(marker) >= 0 && text.slice(text.lastIndexOf(marker)).includes(`? ${id.slice(0, 8)} PENDING:`);
    };
    try {
      await term.waitFor(`? ${id.slice(0, 8)} PENDING:`);
      term.keys('r');
      await term.waitFor('Why reject it?');
      term.keys('Escape');
      await until(() => askedAgainAfter('cancelled: nothing was rejected'), 'the same request asked again', term);
      term.keys('r');
      await until(() => term.text().split('Why reject it?').length - 1 === 2, 'the reason asked again', term);
      term.type('dented');
      term.keys('Enter');
      await term.waitFor(/\(y\/N\)/);
      term.keys('Escape');
      await until(() => askedAgainAfter('cancelled: nothing was rejected'), 'the same request asked after the question left', term);
      expect(term.text()).not.toMatch(/is REJECTED now/);
      // The part prompt names the product; Esc leaves it, nothing accepted.
      term.keys('p');
      await term.waitFor(/is accepted\?/);
      expect(term.text()).toMatch(/^ {2}4001234567890 +Whole milk 3\.5% 1 l \(asked: 1\)$/m);
      term.keys('Escape');
      await until(() => { const t = term.text(); return t.slice(t.lastIndexOf('is accepted?')).includes(`? ${id.slice(0, 8)} PENDING:`); }, 'the same request asked after the part prompt left', term);
      expect(term.text()).not.toMatch(/is (PARTIALLY_)?ACCEPTED now/);
      term.keys('q');
      await term.waitFor('SVC-EXIT=');
      expect(term.text()).toContain('SVC-EXIT=0');
      expect(term.text()).toMatch(/^rejected +0$/m);
    } finally {
      term.kill();
    }
    expect((await queueStatuses(m)).get(id)).toBe('PENDING');
  }, 60_000);

  it('/ finds a request by the customer\'s phone number (80 columns)', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const carolFile = join(await dirs.make('svc-carol-'), 'carol.json');
    await writeFile(carolFile, JSON.stringify({ name: 'Carol Jones', phone: '+4915177700042' }));
    const alice = await requestOn(m);
    const carol = await requestOn(m, ['--customer', carolFile]);
    const term = svcInTerminal('svc-desk-phone', ['credit-note', 'poll', '--watch', '--interval', '600', '--status', 'PENDING'], { ...svcEnv(m.home, m.env), NO_COLOR: '1' }, [80, 24]);
    try {
      await until(() => rowOf(term, carol.id) !== undefined && rowOf(term, alice.id) !== undefined, 'the list', term);
      term.keys('/');
      term.type('7770004');
      term.keys('Enter');
      await until(() => rowOf(term, carol.id) !== undefined && rowOf(term, alice.id) === undefined, 'carol\'s request alone', term);
      // The count line, above the keys line (which may wrap in two).
      expect(lines(term).slice(-4).some((l) => /^1 of \d+ requests \(filter: 7770004\)/.test(l)), lines(term).slice(-4).join('\n')).toBe(true);
      term.keys('q');
      await term.waitFor('SVC-EXIT=0');
    } finally {
      term.kill();
    }
  }, 30_000);
});
