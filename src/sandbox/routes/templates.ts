// `POST /receipt/template` and `POST /credit-note/template`: UBL documents without customer
// data (docs/interface-decisions.md#recipients-receipts-and-credit-notes, #receipt-template-and-submission), each remembered by its
// templateHash for the company's later submission.
import { randomBytes } from 'node:crypto';
import { CreditNoteTemplateRequest, ReceiptTemplateRequest, type UblDocument } from '../../contract/template.js';
import { documentHash } from '../../crypto/hash.js';
import type { Sandbox } from '../context.js';
import { authorize } from '../guard.js';
import { json, validated, type Reply, type RouteRequest, type Router } from '../router.js';
import type { Company } from '../state.js';
import { rememberTemplate, type TemplateKind } from '../templates.js';
import { creditNoteDocument, receiptDocument } from '../ubl.js';

export function register(router: Router, sandbox: Sandbox): void {
  router.post('/receipt/template', (req) =>
    issue(sandbox, req, 'RECEIPT', (body, company, nonce) => receiptDocument(validated(ReceiptTemplateRequest, body, 'the request body'), company, nonce)),
  );
  router.post('/credit-note/template', (req) =>
    issue(sandbox, req, 'CREDIT_NOTE', (body, company, nonce) =>
      creditNoteDocument(validated(CreditNoteTemplateRequest, body, 'the request body'), company, nonce),
    ),
  );
}

function issue(
  sandbox: Sandbox,
  req: RouteRequest<unknown, unknown, unknown>,
  kind: TemplateKind,
  build: (body: unknown, company: Company, verificationNonce: string) => UblDocument,
): Reply {
  // The store decides access, so it is read before the body is validated: a caller without
  // access learns nothing from the validation errors.
  const caller = authorize(sandbox, req, { scope: 'write_receipts', storeId: storeIdOf(req.body) , apiKey: true });
  const company = sandbox.state.companies.get(caller.companyId);
  if (!company) throw new Error(`the caller's company ${caller.companyId} is not in the sandbox`);
  const document = build(req.body, company, randomBytes(16).toString('base64url'));
  const templateHash = documentHash(document);
  rememberTemplate(sandbox, { templateHash, companyId: company.id, kind, document, createdAt: sandbox.clock.iso() });
  return json(201, document);
}

function storeIdOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const storeId = (body as { storeId?: unknown }).storeId;
  return typeof storeId === 'string' ? storeId : undefined;
}
