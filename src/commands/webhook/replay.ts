// `svc webhook replay EVENT_ID`: a journalled delivery once more, by its ID or a unique
// prefix of it (the short IDs `events` shows). Without --forward-to it is decrypted and
// shown as `listen` shows it, and the outcome is journalled (so a delivery that failed
// before a missing key was restored shows as processed); with --forward-to the original
// body and headers go to the local app instead.
import { loadKeyring } from '../../keys/keystore.js';
import { NotFoundError, SvcError, UnavailableError, UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { matchPrefix } from '../../ids/prefix.js';
import { writeJson } from '../../io/output.js';
import { handedOn } from '../../io/turn-batch.js';
import { note } from '../../io/streams.js';
import { inProcessDecryptor } from '../../webhook/decryptor.js';
import { createForwarder, parseForwardUrl } from '../../webhook/forward.js';
import { forwardHeadersOf } from '../../webhook/routes.js';
import { appendJournalLine, processedLine, scanJournal, type DeliveryLine, type ProcessedLine, type StoredDelivery } from '../../webhook/journal.js';
import { decodeDelivery, eventSummary, shortId, writeEvent } from '../../webhook/processor.js';
import { companyNames } from '../../webhook/event-context.js';
import { resolveProfileName } from '../../config/settings.js';
import { journalPathOf } from '../../webhook/subscriptions.js';

export interface ReplayOptions {
  eventId: string;
  forwardTo?: string | undefined;
}

export async function run(opts: ReplayOptions, f: Factory): Promise<void> {
  const forwardUrl = opts.forwardTo === undefined ? undefined : parseForwardUrl(opts.forwardTo);
  const path = journalPathOf(f);
  const { line, last } = await findDelivery(path, opts.eventId);
  const delivery: StoredDelivery = {
    entry: { id: line.id, receivedAt: line.receivedAt, event: line.event },
    raw: Buffer.from(line.body, 'base64'),
    headers: line.headers,
  };

  if (forwardUrl) {
    const forwarder = createForwarder(forwardUrl);
    // With the headers a live forward carries (Svc-Event, Svc-Delivery-Id, Svc-Company-Id).
    const result = await forwarder.forward(delivery, forwardHeadersOf(delivery)).finally(() => forwarder.close());
    // Only an app that took it was forwarded to: a refusal is the error alone.
    if (result.status === undefined || result.status < 200 || result.status > 299) {
      const message = `the app at ${forwardUrl.href} did not accept ${shortId(line.id)} (${result.text})`;
      const hint = 'the delivery stays in the journal; send it again once the app takes it';
      // Not reached, or down (5xx, 429): unavailable, as a service would be (exit 8); any
      // other answer is one svc did not expect (exit 1).
      const away = result.status === undefined || result.status === 429 || result.status >= 500;
      throw away ? new UnavailableError(message, { hint: result.status === undefined ? `is the app running? ${hint}` : hint }) : new SvcError(message, { hint });
    }
    if (f.io.json) writeJson(f.io, { id: line.id, forwardedTo: forwardUrl.href, status: result.status });
    else note(f.io, `forwarded ${shortId(line.id)} to ${forwardUrl.href}: ${result.text}`);
    // The listener journalled that this target never took it: it has now (`svc webhook events`).
    const failed = last?.forwardFailed;
    const left = failed?.filter((text) => !text.startsWith(`${forwardUrl.href}: `));
    if (last && failed && left && left.length < failed.length) {
      await appendJournalLine(path, processedLine(line.id, new Date(f.clock.now()).toISOString(), { ok: last.ok, error: last.error, forwardFailed: left }));
    }
    return;
  }

  const decoded = await decodeDelivery(delivery.raw, inProcessDecryptor(() => loadKeyring(f)));
  // What the live line said of it that needs no service: whose it is (src/webhook/event-context.ts).
  // Not the request ID: that means listing the queue, and a replay works offline from the journal.
  const profile = resolveProfileName(f.globals, f.env).value;
  writeEvent(f.io, {
    report: {
      id: line.id,
      event: decoded.event ?? line.event,
      receivedAt: line.receivedAt,
      verified: true,
      duplicate: false,
      data: decoded.data,
      ...(decoded.error === undefined ? {} : { error: decoded.error }),
      ...(decoded.companyId === undefined ? {} : { companyId: decoded.companyId }),
      ...(decoded.serviceReceiptId === undefined ? {} : { serviceReceiptId: decoded.serviceReceiptId }),
    },
    summary: eventSummary(decoded, undefined, await companyNames(f, profile)),
  });
  // Processed again here, not forwarded: a target that never took it still has not.
  const outcome = { ok: decoded.error === undefined, error: decoded.error, forwardFailed: last?.forwardFailed };
  // Journalled as processed once its line is out of this process (src/webhook/processor.ts);
  // a reader gone before that leaves it unprocessed.
  if (!(await handedOn([f.io.stdout, f.io.stderr]).then(() => true, () => false))) return;
  await appendJournalLine(path, processedLine(line.id, new Date(f.clock.now()).toISOString(), outcome));
  if (!outcome.ok) throw new SvcError(`${shortId(line.id)} could not be processed`, { hint: 'the reason is on the line above; the delivery stays in the journal' });
}

/** The delivery whose ID begins with `wanted`, and its last `processed` line. */
async function findDelivery(path: string, wanted: string): Promise<{ line: DeliveryLine; last: ProcessedLine | undefined }> {
  const id = wanted.trim().toLowerCase();
  if (!/^[0-9a-f]{1,64}$/.test(id)) {
    throw new UsageError(`"${wanted}" is not an event ID`, { hint: 'give the ID (or its first 6 or more hex digits) that `svc webhook events` shows' });
  }
  const deliveries = new Map<string, DeliveryLine>();
  const processed = new Map<string, ProcessedLine>();
  await scanJournal(path, (line) => {
    if (!line.id.startsWith(id)) return;
    if (line.type === 'processed') processed.set(line.id, line);
    else if (!deliveries.has(line.id)) deliveries.set(line.id, line);
  });
  const found = deliveries.get(matchPrefix(id, deliveries.keys(), { noun: 'event ID', listedBy: '`svc webhook events`' }));
  if (!found) throw new NotFoundError(`no delivery ${wanted} in ${path}`, { hint: 'see the journalled ones with `svc webhook events`' });
  return { line: found, last: processed.get(found.id) };
}
