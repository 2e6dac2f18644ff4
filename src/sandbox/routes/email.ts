// `POST /receipt/email` (docs/interface-decisions.md#receipt-email): the service renders the receipt as a PDF and mails
// it. The sandbox mails nothing; it keeps each message and its PDF in an outbox that
// `GET /sandbox/outbox` lists and `GET /sandbox/outbox/{messageId}.pdf` serves (§7), also
// by a unique prefix of the ID.
import { randomUUID } from 'node:crypto';
import { ReceiptEmailRequest } from '../../contract/receipt.js';
import { documentHash } from '../../crypto/hash.js';
import { MIN_PREFIX, prefixCandidates } from '../../ids/prefix.js';
import type { Sandbox } from '../context.js';
import { authorize } from '../guard.js';
import { idempotent } from '../idempotency.js';
import { renderReceiptPdf } from '../pdf.js';
import { HttpError, json, validated, type Router } from '../router.js';
import { defineSlice } from '../state.js';
import { findTemplate } from '../templates.js';

interface OutboxEntry {
  readonly messageId: string;
  readonly to: string;
  readonly documentNumber: string;
  readonly createdAt: string;
  readonly pdf: Buffer;
  /** Absent in a state saved by an older sandbox. */
  readonly replacedCharacters?: number;
  readonly truncatedTexts?: number;
}

const outbox = defineSlice('outbox', () => new Map<string, OutboxEntry>());

export function register(router: Router, sandbox: Sandbox): void {
  router.post('/receipt/email', (req) => {
    const caller = authorize(sandbox, req, { scope: 'write_receipts' , apiKey: true });
    return idempotent(sandbox, req, caller.companyId, async () => {
      const request = validated(ReceiptEmailRequest, req.body, 'the request body');
      // Only documents this service issued to this company go out under its name.
      if (!findTemplate(sandbox, caller.companyId, documentHash(request.template), 'RECEIPT')) {
        throw new HttpError('unknown_template', 'the template is not a receipt template issued to this company', {
          details: [{ path: 'template', message: 'must be the unchanged response of POST /receipt/template' }],
        });
      }
      const createdAt = sandbox.clock.iso();
      // The body was read, parsed and checked in this turn; rendering starts in the next.
      await new Promise((resolve) => setImmediate(resolve));
      const { pdf, replaced, truncated } = await renderReceiptPdf(request.template, { createdAt: new Date(createdAt), customer: request.customer });
      const entry: OutboxEntry = {
        messageId: randomUUID(),
        to: request.to,
        documentNumber: request.template.id?.value ?? '',
        createdAt,
        pdf,
        replacedCharacters: replaced,
        truncatedTexts: truncated,
      };
      sandbox.state.slice(outbox).set(entry.messageId, entry);
      const caveats = [
        replaced > 0 ? `${replaced} character${replaced === 1 ? '' : 's'} the font cannot show printed as U+FFFD` : '',
        truncated > 0 ? `${truncated} text${truncated === 1 ? '' : 's'} cut short` : '',
      ].filter((c) => c !== '');
      sandbox.log(`receipt email ${entry.messageId} queued (${pdf.length} bytes of PDF${caveats.length > 0 ? `; ${caveats.join(', ')}` : ''})`);
      // What the outbox lists, told to the sender at once, so that it can warn.
      return json(202, { messageId: entry.messageId, status: 'QUEUED', replacedCharacters: replaced, truncatedTexts: truncated });
    });
  });

  router.get('/sandbox/outbox', () =>
    json(
      200,
      [...sandbox.state.slice(outbox).values()].map(({ messageId, to, documentNumber, createdAt, pdf, replacedCharacters, truncatedTexts }) => ({
        messageId,
        to,
        documentNumber,
        createdAt,
        size: pdf.length,
        replacedCharacters: replacedCharacters ?? 0,
        truncatedTexts: truncatedTexts ?? 0,
      })),
    ),
  );

  // The router matches whole segments, so the ".pdf" suffix is taken off here. A message is
  // named by its whole ID or a unique prefix of 6+ characters, as svc takes IDs everywhere:
  // `svc sandbox outbox` on a narrow terminal shows such a prefix, and its hint says to use it.
  router.get('/sandbox/outbox/{file}', (req) => {
    const messageId = req.params.file.endsWith('.pdf') ? req.params.file.slice(0, -'.pdf'.length) : undefined;
    const entry = messageId === undefined ? undefined : messageNamed(sandbox.state.slice(outbox), messageId);
    if (!entry) throw new HttpError('not_found', `no message ${req.params.file} in the outbox; see GET /sandbox/outbox`);
    return {
      status: 200,
      headers: { 'Content-Type': 'application/pdf', 'Content-Disposition': `inline; filename="${entry.messageId}.pdf"` },
      body: entry.pdf,
    };
  });
}

/** The message `id` names: its whole ID, or a prefix of 6+ characters that starts no other. */
function messageNamed(messages: ReadonlyMap<string, OutboxEntry>, id: string): OutboxEntry | undefined {
  const exact = messages.get(id);
  if (exact || id.length < MIN_PREFIX) return exact;
  const matches = prefixCandidates(id, [...messages.keys()], { noun: 'message ID', listedBy: 'GET /sandbox/outbox' });
  if (matches.length > 1) {
    throw new HttpError('invalid_request', `message ID prefix ${id} starts ${matches.length} messages (${matches.join(', ')}); give more of its characters`);
  }
  return matches.length === 1 ? messages.get(matches[0]!) : undefined;
}
