// Templates the sandbox issued, by `templateHash` (the hash of the response body, docs/interface-decisions.md#template-and-final-hashes)
// and company: a submission may only name a template its own company was given.
import type { UblDocument } from '../contract/template.js';
import type { Sandbox } from './context.js';
import { HttpError } from './router.js';
import { defineSlice } from './state.js';

export type TemplateKind = 'RECEIPT' | 'CREDIT_NOTE';

export interface TemplateRecord {
  readonly templateHash: string;
  readonly companyId: string;
  readonly kind: TemplateKind;
  /** The response body as sent. */
  readonly document: UblDocument;
  readonly createdAt: string;
}

const templates = defineSlice('templates', () => new Map<string, TemplateRecord>());

const keyOf = (companyId: string, templateHash: string) => `${companyId} ${templateHash}`;

export function rememberTemplate(sandbox: Sandbox, template: TemplateRecord): void {
  sandbox.state.slice(templates).set(keyOf(template.companyId, template.templateHash), template);
}

export function findTemplate(sandbox: Sandbox, companyId: string, templateHash: string, kind: TemplateKind): TemplateRecord | undefined {
  const template = sandbox.state.slice(templates).get(keyOf(companyId, templateHash));
  return template?.kind === kind ? template : undefined;
}

/** The submission's template, or 400 `unknown_template` naming the endpoint that issues one. */
export function requireTemplate(sandbox: Sandbox, companyId: string, templateHash: string, kind: TemplateKind): TemplateRecord {
  const template = findTemplate(sandbox, companyId, templateHash, kind);
  if (template) return template;
  const [what, issuer] = kind === 'RECEIPT' ? ['receipt', '/receipt/template'] : ['credit note', '/credit-note/template'];
  throw new HttpError('unknown_template', `the templateHash names no ${what} template issued to this company`, {
    details: [{ path: 'templateHash', message: `is not the hash of a ${what} template from POST ${issuer}` }],
  });
}
