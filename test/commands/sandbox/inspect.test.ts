import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../src/api/client.js';
import { fixedClock } from '../../../src/clock.js';
import { run as deliveries } from '../../../src/commands/sandbox/deliveries.js';
import { run as outbox } from '../../../src/commands/sandbox/outbox.js';
import type { UblDocument } from '../../../src/contract/template.js';
import { createFactory } from '../../../src/factory.js';
import { testStreams } from '../../../src/io/test-streams.js';
import { START, issueReceipt, startHarness, templateRequest, type Harness } from '../../sandbox/receipt-helpers.js';

describe('svc sandbox outbox / deliveries', () => {
  let h: Harness;
  let serviceReceiptId: string;
  let messageId: string;
  let cutMessageId: string;
  beforeAll(async () => {
    h = await startHarness();
    const token = h.token();
    ({ serviceReceiptId } = await issueReceipt(h, token, { email: 'carol@example.org' }));
    await issueReceipt(h, token, { email: 'bob@example.com' });
    const template = (await h.call<UblDocument>('POST', '/receipt/template', { token, body: templateRequest() })).body;
    messageId = String((await h.call('POST', '/receipt/email', { token, body: { to: 'carol@example.org', template } })).body.messageId);
    // Two characters DejaVu Sans has no glyph for, and a note past the 2,000 characters drawn.
    const cut = (await h.call<UblDocument>('POST', '/receipt/template', { token, body: templateRequest({ documentNumber: 'R-2030-0002', note: `\u{10FFFD}\u{10FFFC} ${'n'.repeat(3000)}` }) })).body;
    cutMessageId = String((await h.call('POST', '/receipt/email', { token, body: { to: 'dave@example.org', template: cut } })).body.messageId);
  });
  afterAll(() => h.close());

  function harness(opts: { json?: boolean; tty?: boolean } = {}) {
    const streams = testStreams({ json: opts.json ?? false, stdoutIsTTY: opts.tty ?? false });
    const api = createApiClient({ baseUrl: h.running.url, io: streams.io, debug: false, clock: fixedClock(START) });
    const f = createFactory({ env: {}, globals: { json: opts.json ?? false, input: false, debug: false, color: false }, io: streams.io, api });
    return { streams, f, close: () => api.close() };
  }

  it('deliveries: one tab-separated row per device when piped, filtered by receipt', async () => {
    const t = harness();
    await deliveries({ serviceReceiptId }, t.f);
    await t.close();
    expect(t.streams.stdout().split('\n').filter(Boolean)).toEqual([
      `${serviceReceiptId}\tRECEIPT\tdd000000-0000-4000-8000-000000000031\tDELIVERED\tmatches\t`,
      `${serviceReceiptId}\tRECEIPT\tdd000000-0000-4000-8000-000000000032\tDELIVERED\tmatches\t`,
    ]);
  });

  it('deliveries: every receipt without an argument; a table on a TTY; the records with --json', async () => {
    const piped = harness();
    await deliveries({}, piped.f);
    await piped.close();
    expect(piped.streams.stdout().trim().split('\n')).toHaveLength(3);

    const tty = harness({ tty: true });
    await deliveries({ serviceReceiptId }, tty.f);
    await tty.close();
    expect(tty.streams.stdout()).toMatch(/SERVICE RECEIPT ID.*STATUS.*FINAL HASH/);

    const json = harness({ json: true });
    await deliveries({ serviceReceiptId }, json.f);
    await json.close();
    const records = JSON.parse(json.streams.stdout()) as Record<string, unknown>[];
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({ serviceReceiptId, status: 'DELIVERED', hashMatches: true, entry: { recipientId: 'dd000000-0000-4000-8000-000000000031' } });
  });

  it('outbox: the messages, as rows, a table, or JSON; characters replaced and texts cut in columns of their own', async () => {
    const piped = harness();
    await outbox({}, piped.f);
    await piped.close();
    const created = new Date(START).toISOString();
    expect(piped.streams.stdout()).toMatch(
      new RegExp(`^${messageId}\tcarol@example.org\tR-2030-0001\t${created}\t\\d+\t0\t0\n${cutMessageId}\tdave@example.org\tR-2030-0002\t${created}\t\\d+\t2\t1\n$`),
    );

    const tty = harness({ tty: true });
    await outbox({}, tty.f);
    await tty.close();
    expect(tty.streams.stdout()).toMatch(/MESSAGE ID.*TO.*DOCUMENT.*CREATED.*SIZE.*REPLACED.*CUT/);
    expect(tty.streams.stdout()).toMatch(/dave@example\.org.*\s2\s+1$/m);
    expect(tty.streams.stderr()).toContain(`each PDF is at ${h.running.url}/sandbox/outbox/<MESSAGE ID>.pdf`);

    const json = harness({ json: true });
    await outbox({}, json.f);
    await json.close();
    expect(JSON.parse(json.streams.stdout())).toEqual([
      { messageId, to: 'carol@example.org', documentNumber: 'R-2030-0001', createdAt: created, size: expect.any(Number), replacedCharacters: 0, truncatedTexts: 0 },
      { messageId: cutMessageId, to: 'dave@example.org', documentNumber: 'R-2030-0002', createdAt: created, size: expect.any(Number), replacedCharacters: 2, truncatedTexts: 1 },
    ]);
  });
});
