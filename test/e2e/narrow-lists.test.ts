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

  it('grants list --details at 60, 80 and 120: IDs at their prefix before a column is left out, every row told apart, SCOPES shown or named', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const details = await m.json<{ grant_id: string; stores: unknown[]; scopes: string[] }[]>(['grants', 'list', '--details']);
    for (const width of [60, 80, 120, 200]) {
      const lines = await screenAt('details', width, ['grants', 'list', '--details']);
      const said = `${width} columns:\n${lines.join('\n')}`;
      expectNoCutCodes(lines);
      const notShown = lines.find((l) => l.startsWith('not shown: '));
      const rows = lines.slice(1).filter((l) => l !== notShown);
      expect(rows.length, said).toBe(details.reduce((n, d) => n + d.stores.length, 0));
      // Two stores of one company are two rows that read apart.
      expect(new Set(rows).size, said).toBe(rows.length);
      for (const d of details) {
        expect(said).toContain(d.grant_id.slice(0, 8));
        // A column left out: the Grant IDs are at their prefix, as at 80.
        if (notShown !== undefined) expect(said).not.toContain(d.grant_id);
      }
      // The scopes --help and the README promise: a column, or named as left out.
      if (lines[0]!.includes('SCOPES')) expect(said).toContain(details[0]!.scopes.join(' '));
      else expect(notShown, said).toMatch(/^not shown: .*SCOPES/);
      if (width === 200) expect(lines[0], said).toMatch(/ SCOPES$/);
    }
  }, 120_000);

  it('config list at 60, 80 and 120: every value whole, a long one wrapped in its column', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { settings } = await m.json<{ settings: { key: string; value: string | null }[] }>(['config', 'list']);
    for (const width of [60, 80, 120]) {
      const lines = await screenAt('config', width, ['config', 'list']);
      const said = `${width} columns:\n${lines.join('\n')}`;
      expect(said).not.toContain('…');
      const [from, to] = [lines[0]!.indexOf('VALUE'), lines[0]!.indexOf('SOURCE')];
      // Each row's VALUE cells, its continuation lines (blank KEY) after it, read back as one value.
      const values: string[] = [];
      for (const line of lines.slice(1)) {
        const cell = line.slice(from, to).trim();
        if (line.startsWith(' ')) values[values.length - 1] += ` ${cell}`;
        else values.push(cell);
      }
      expect(values, said).toEqual(settings.map((s) => s.value ?? ''));
    }
  }, 120_000);

  it('webhook listen at 60 columns: an event line wider than the terminal wraps at words, its continuations indented', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const term = svcInTerminal('listen-60', ['webhook', 'listen', '--subscribe', '--port', '0'], svcEnv(m.home, m.env), [60, 30]);
    try {
      await term.waitFor(/^listening on /m, 'the listener');
      await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1']);
      await term.waitFor(/company\s+Example\s+Retail\s+Ltd/, 'the event line');
      const text = term.text();
      // A line the terminal wrapped by itself comes back joined (-J), wider than 60.
      for (const line of text.split('\n')) expect(displayWidth(line), `${line}\n${text}`).toBeLessThanOrEqual(60);
      const lines = text.split('\n');
      const at = lines.findIndex((l) => l.startsWith('--> RETURN_REQUESTED  '));
      const continued = lines.slice(at + 1).filter((l) => l.trim() !== '' && !l.startsWith('SVC-EXIT'));
      expect(continued.length, text).toBeGreaterThan(0);
      for (const line of continued) expect(line, text).toMatch(/^ {4}\S/);
      term.keys('C-c');
      await term.waitFor('SVC-EXIT=', 'the end of the listener');
    } finally {
      term.kill();
    }
  }, 60_000);

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
