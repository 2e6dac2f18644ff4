// Lists on a narrow terminal (tmux, 60 and 80 columns): nothing wraps, IDs keep their usable
// prefix, and a column that does not fit whole is left out (named on the count line as
// "not shown: …") rather than every value cut to "…": statuses, refund methods, document
// numbers and dates are whole or not there.
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/width.js';
import { svcEnv } from './helpers.js';
import { useMerchant } from './merchant.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const { merchant } = useMerchant();

/** `svc ARGS` at WIDTH columns: the lines it printed (wrapped lines joined back, -J). */
async function screenAt(name: string, width: number, args: readonly string[]): Promise<string[]> {
  const m = merchant();
  const term = svcInTerminal(`${name}-${width}`, args, svcEnv(m.home, m.env), [width, 40]);
  try {
    await term.waitFor(/SVC-EXIT=\d+/, `the end of svc ${args.join(' ')}`);
    const text = term.text();
    expect(text, text).toContain('SVC-EXIT=0');
    const lines = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('SVC-EXIT='));
    // A row wider than the terminal would come back joined, longer than it. (The outbox's
    // stderr hint is a URL, which no terminal can break.)
    for (const line of lines.filter((l) => !l.startsWith('each PDF is at '))) expect(displayWidth(line), `${line}\n${text}`).toBeLessThanOrEqual(width);
    return lines;
  } finally {
    term.kill();
  }
}

/** Upper-case values (statuses, refund methods, headers) and numbers are never cut to "…". */
function expectNoCutCodes(lines: readonly string[]): void {
  for (const line of lines) expect(line, lines.join('\n')).not.toMatch(/[A-Z_0-9-]{2}…/);
}

describe('lists at 60 and 80 columns', () => {
  it('credit-note poll, receipt list, sandbox outbox, webhook list and grants list', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const request = (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:2', '--note', 'the milk was sour when we opened it at home'])).stdout.trim();
    // The longest status: PARTIALLY_ACCEPTED is whole at 60 columns, or the table is wrong.
    await m.svc(['credit-note', 'accept', request, '--item', '4001234567890:1']);
    const [subscription] = await m.json<{ id: string }[]>(['webhook', 'subscribe', '--url', 'https://shop.example/a/rather/long/path/for/webhooks', '--events', 'RETURN_REQUESTED']).then((s) => [s].flat());
    await m.svc(['receipt', 'email', '--file', await m.newReceiptFile(), '--to', 'bob.with.a.long.address@example.com']);
    const [grant] = await m.json<{ grant_id: string }[]>(['grants', 'list']);

    for (const width of [60, 80]) {
      const poll = await screenAt('poll', width, ['credit-note', 'poll', '--all']);
      expectNoCutCodes(poll);
      expect(poll.join('\n')).toContain(request.slice(0, 8));
      expect(poll.join('\n')).toContain(' PARTIALLY_ACCEPTED ');
      if (width === 60) {
        // Named, with how to see them; and so it is: --json has the refund.
        expect(poll.at(-1)).toMatch(/^not shown: [A-Z, ]*REFUND[A-Z, ]* \(--json has them\)$/);
        const asJson = await m.json<{ requestId: string; returnRequest?: { refundPreference?: string } }[]>(['credit-note', 'poll', '--all']);
        expect(asJson.find((r) => r.requestId === request)?.returnRequest?.refundPreference).toBeTruthy();
      }

      const receipts = await screenAt('receipts', width, ['receipt', 'list']);
      expectNoCutCodes(receipts);
      expect(receipts.join('\n')).toContain(serviceReceiptId.slice(0, 8));
      expect(receipts.join('\n')).toContain('R-2025-000871-1');
      // The ID at its prefix under its short header, so the issue date and the total fit at 60.
      expect(receipts[0]).toMatch(width === 60 ? /^ID +DOCUMENT +ISSUED +TOTAL$/ : /^SERVICE RECEIPT ID  DOCUMENT +ISSUED +TOTAL +RECIPIENTS$/);

      const outbox = await screenAt('outbox', width, ['sandbox', 'outbox']);
      expectNoCutCodes(outbox);
      expect(outbox.join('\n')).toContain('R-2025-000871-2');
      // The hint's URL with the ID as the row shows it (cut to a prefix at 60 columns) is the PDF.
      const shownId = outbox.find((l) => l.includes('R-2025-000871-2'))!.split(/\s+/)[0]!;
      const pdf = await fetch(`${m.sandbox.url}/sandbox/outbox/${shownId}.pdf`);
      expect(pdf.status, `${shownId}: ${outbox.join('\n')}`).toBe(200);
      expect(pdf.headers.get('content-type')).toBe('application/pdf');
      expect(outbox.join('\n')).toContain(`each PDF is at ${m.sandbox.url}/sandbox/outbox/<MESSAGE ID>.pdf (an ID cut short above works too`);
      if (width === 60) expect(shownId.length).toBeLessThan(36);

      const hooks = await screenAt('hooks', width, ['webhook', 'list']);
      expectNoCutCodes(hooks);
      expect(hooks.join('\n')).toContain((subscription as { id: string }).id.slice(0, 12));

      const grants = await screenAt('grants', width, ['grants', 'list']);
      expectNoCutCodes(grants);
      expect(grants.join('\n')).toContain((grant as { grant_id: string }).grant_id.slice(0, 8));
    }
  }, 120_000);

  it('the queue screen (poll --watch) at 60 columns: rows unwrapped, the left-out columns named, the count line the plain poll\'s', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const trigger = async () => (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:2'])).stdout.trim();
    const accepted = await trigger();
    await m.svc(['credit-note', 'accept', accepted, '--item', '4001234567890:1']);
    await trigger(); // pending: not in a view of PARTIALLY_ACCEPTED, so not counted there
    const term = svcInTerminal('watch-60', ['credit-note', 'poll', '--watch', '--interval', '1', '--receipt', serviceReceiptId, '--status', 'PARTIALLY_ACCEPTED'], svcEnv(m.home, m.env), [60, 20]);
    try {
      await term.waitFor(/1 request · 1 partially accepted · oldest/, 'the count line');
      const screen = term.text();
      const lines = screen.split('\n');
      for (const line of lines) expect(displayWidth(line), `${line}\n${screen}`).toBeLessThanOrEqual(60);
      expect(screen).not.toContain('pending');
      // At 60 the note does not fit after the count line: a line of its own above it.
      expect(screen).toMatch(/^not shown: [A-Z, ]*REFUND[A-Z, ]*( \(widen to see them\))?\n1 request · 1 partially accepted · oldest \S+ · row 1/m);
      expect(screen).toContain(`${accepted.slice(0, 8)} `);
      expect(screen).toContain(' PARTIALLY_ACCEPTED ');
      expectNoCutCodes(lines);
      term.keys('q');
      await term.waitFor('SVC-EXIT=0', 'the end of the watch');
    } finally {
      term.kill();
    }
    // Over every company (--all-grants) the count line is the same one, with the companies.
    const all = (await screenAt('poll-all', 80, ['credit-note', 'poll', '--all-grants', '--receipt', serviceReceiptId, '--status', 'PARTIALLY_ACCEPTED'])).join('\n');
    // The companies the requests shown are of, of those polled.
    expect(all).toMatch(/^1 request · 1 partially accepted · oldest \S+ · in 1 of 2 companies/m);
    expect(all).not.toContain('pending');
  }, 60_000);
});
