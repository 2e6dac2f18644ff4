// Receipt management (docs/interface-decisions.md#recipients-receipts-and-credit-notes, #receipt-template-and-submission): `POST /receipt/template`,
// `/receipt/encrypted` and `/receipt/email`, all with a `write_receipts` token.
import {
  ReceiptEmailResponse,
  ReceiptSubmissionResult,
  type ReceiptEmailRequest,
  type ReceiptSubmission,
} from '../contract/receipt.js';
import { UblDocument, type ReceiptTemplateRequest } from '../contract/template.js';
import type { Caller } from './caller.js';

/** The template document, exactly as the service returned it (its hash is the templateHash). */
export function createReceiptTemplate(caller: Caller, request: ReceiptTemplateRequest): Promise<UblDocument> {
  return caller.api.request({
    method: 'POST',
    path: '/receipt/template',
    body: request,
    auth: caller.auth,
    schema: UblDocument,
    // A template is not a receipt: asking again after a 5xx issues nothing twice.
    retry: true,
  });
}

/** The Idempotency-Key lets the client retry without issuing the receipt twice. */
export function submitEncryptedReceipt(
  caller: Caller,
  submission: ReceiptSubmission,
  idempotencyKey: string,
): Promise<ReceiptSubmissionResult> {
  return caller.api.request({
    method: 'POST',
    path: '/receipt/encrypted',
    body: submission,
    auth: caller.auth,
    schema: ReceiptSubmissionResult,
    idempotencyKey,
  });
}

/** The Idempotency-Key lets the client retry without sending the email twice. */
export function emailReceipt(caller: Caller, request: ReceiptEmailRequest, idempotencyKey: string): Promise<ReceiptEmailResponse> {
  return caller.api.request({
    method: 'POST',
    path: '/receipt/email',
    body: request,
    auth: caller.auth,
    schema: ReceiptEmailResponse,
    idempotencyKey,
  });
}
