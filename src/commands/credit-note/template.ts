// `svc credit-note template --file F|-`: validates a credit note locally (the same schema
// the service applies, tax total rule included), then prints the service's template
// document and its templateHash.
import { writeReceiptsCaller } from '../../auth/caller.js';
import { createCreditNoteTemplate } from '../../api/credit-note.js';
import { CreditNoteTemplateRequest } from '../../contract/template.js';
import { parseOrThrow } from '../../contract/validate.js';
import type { Factory } from '../../factory.js';
import { inputName, readJsonInput } from '../../io/input.js';
import { jsonText, writeJson } from '../../io/output.js';
import { println } from '../../io/streams.js';
import { hashedTemplate } from '../../receipts/template.js';
import { checkMembers } from '../receipt/template-step.js';

export interface TemplateOptions {
  file: string;
  /** Refuse members the interface does not name instead of warning. */
  strict?: boolean | undefined;
}

export async function run(opts: TemplateOptions, f: Factory): Promise<void> {
  const value = await readJsonInput(opts.file, f);
  const request = parseOrThrow(CreditNoteTemplateRequest, value, inputName(opts.file));
  checkMembers(f, CreditNoteTemplateRequest, value, inputName(opts.file), opts.strict);
  const caller = await writeReceiptsCaller(f);
  const { document, templateHash } = await hashedTemplate(f, 'creating the credit note template', () => createCreditNoteTemplate(caller, request));
  if (f.io.json) return writeJson(f.io, { ...document, templateHash });
  println(f.io, jsonText(document, 2));
  println(f.io, `templateHash ${templateHash}`);
}
