// `svc receipt email --file F|- --to EMAIL`: the service renders the template as a PDF and
// mails it; no device and no encryption are involved.
import { randomUUID } from 'node:crypto';
import { writeReceiptsCaller } from '../../auth/caller.js';
import { emailReceipt } from '../../api/receipt.js';
import { ReceiptEmailRequest, type ReceiptEmailResponse } from '../../contract/receipt.js';
import { parseOrThrow } from '../../contract/validate.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { withSpinner } from '../../io/spinner.js';
import { note, println } from '../../io/streams.js';
import { fetchTemplate } from '../../receipts/template.js';
import { readTemplateRequest } from './template-step.js';

export interface EmailOptions {
  file: string;
  to: string;
  issueDate?: string | undefined;
  /** Refuse members the interface does not name instead of warning. */
  strict?: boolean | undefined;
}

export async function run(opts: EmailOptions, f: Factory): Promise<void> {
  // Checked as the request member, so the message names `to` rather than "(root)".
  const { to } = parseOrThrow(ReceiptEmailRequest.pick({ to: true }), { to: opts.to.trim() }, '--to');
  const request = await readTemplateRequest(f, opts.file, undefined, opts.issueDate, opts.strict);
  const caller = await writeReceiptsCaller(f);
  const { document } = await fetchTemplate(f, caller, request);
  const sent = await withSpinner(f.io, 'queueing the email', () => emailReceipt(caller, { to, template: document }, randomUUID()));
  // Said under --json too, like the template's warnings: it is about what the customer gets.
  const lacking = renderingNote(sent);
  if (lacking !== undefined) note(f.io, lacking);
  if (f.io.json) return writeJson(f.io, sent);
  println(f.io, sent.messageId);
  note(f.io, `receipt ${request.documentNumber} ${sent.status.toLowerCase()} for ${to}`);
}

/** What the PDF could not show as sent, when the service says (the sandbox does; a service may not). */
function renderingNote(sent: ReceiptEmailResponse): string | undefined {
  const replaced = sent.replacedCharacters ?? 0;
  const cut = sent.truncatedTexts ?? 0;
  const parts = [
    replaced > 0 ? `cannot show ${replaced} character${replaced === 1 ? '' : 's'} (printed as \uFFFD or left out)` : '',
    cut > 0 ? `cuts ${cut} text${cut === 1 ? '' : 's'} short` : '',
  ].filter((part) => part !== '');
  return parts.length === 0 ? undefined : `note: the PDF ${parts.join(' and ')} (see \`svc sandbox outbox\`)`;
}
