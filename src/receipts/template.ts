// A template from the service (`POST /receipt/template` or `/credit-note/template`): fetched
// under a spinner, its warnings on stderr, its templateHash and canonical text computed.
import type { Caller } from '../api/caller.js';
import { createReceiptTemplate } from '../api/receipt.js';
import type { ReceiptTemplateRequest, UblDocument } from '../contract/template.js';
import type { Factory } from '../factory.js';
import { withSpinner } from '../io/spinner.js';
import { note } from '../io/streams.js';
import { canonicalTemplate, type CanonicalTemplate } from './final-document.js';

export interface Template {
  /** The response body as the service returned it. */
  document: UblDocument;
  /** docs/interface-decisions.md#template-and-final-hashes: over the whole response body. */
  templateHash: string;
  /** Its canonical text, ready for the final document (final-document.ts). */
  canonical: CanonicalTemplate;
}

/** `POST /receipt/template`; the service's warnings go to stderr. */
export function fetchTemplate(f: Factory, caller: Caller, request: ReceiptTemplateRequest): Promise<Template> {
  return hashedTemplate(f, 'creating the receipt template', () => createReceiptTemplate(caller, request));
}

/** Any template operation (receipt or credit note): spinner, the service's warnings on stderr, the templateHash. */
export async function hashedTemplate(f: Factory, doing: string, create: () => Promise<UblDocument>): Promise<Template> {
  const document = await withSpinner(f.io, doing, create);
  for (const warning of document.warnings ?? []) note(f.io, `warning: ${warning}`);
  const canonical = canonicalTemplate(document);
  return { document, templateHash: canonical.templateHash, canonical };
}
