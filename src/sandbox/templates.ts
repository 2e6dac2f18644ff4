// Templates the sandbox issued, by `templateHash` (the hash of the response body, CONTRACT
// §1) and company: a submission may only name a template its own company was given.
import type { UblDocument } from '../contract/template.js';
import type { Sandbox } from './context.js';
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

const templates = defineSlice(() => new Map<string, TemplateRecord>());

const keyOf = (companyId: string, templateHash: string) => `${companyId} ${templateHash}`;

export function rememberTemplate(sandbox: Sandbox, template: TemplateRecord): void {
  sandbox.state.slice(templates).set(keyOf(template.companyId, template.templateHash), template);
}

export function findTemplate(sandbox: Sandbox, companyId: string, templateHash: string, kind: TemplateKind): TemplateRecord | undefined {
  const template = sandbox.state.slice(templates).get(keyOf(companyId, templateHash));
  return template?.kind === kind ? template : undefined;
}
