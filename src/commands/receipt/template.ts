// `svc receipt template --file F|-`: validates a receipt locally, then prints the service's
// template document and its templateHash.
import { writeReceiptsCaller } from '../../auth/caller.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { println } from '../../io/streams.js';
import { fetchTemplate } from '../../receipts/template.js';
import { readTemplateRequest } from './template-step.js';

export interface TemplateOptions {
  file: string;
  issueDate?: string | undefined;
  /** Refuse members the interface does not name instead of warning. */
  strict?: boolean | undefined;
}

export async function run(opts: TemplateOptions, f: Factory): Promise<void> {
  const request = await readTemplateRequest(f, opts.file, undefined, opts.issueDate, opts.strict);
  const { document, templateHash } = await fetchTemplate(f, await writeReceiptsCaller(f), request);
  if (f.io.json) return writeJson(f.io, { ...document, templateHash });
  println(f.io, JSON.stringify(document, null, 2));
  println(f.io, `templateHash ${templateHash}`);
}
