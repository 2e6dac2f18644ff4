// Credit note management (docs/interface-decisions.md#recipients-receipts-and-credit-notes, #return-request-moves), all with a `write_receipts` token:
// the return request queue (`GET /credit-note`), its status updates, the credit note
// template and the encrypted submission.
import { CreditNoteSubmissionResult, type CreditNoteSubmission } from '../contract/credit-note.js';
import {
  QueueItems,
  StatusUpdateResponse,
  type QueueItem,
  type SettableQueueItemStatus,
} from '../contract/returns.js';
import { UblDocument, type CreditNoteTemplateRequest } from '../contract/template.js';
import { ApiError, ExitCode, NotFoundError, SvcError } from '../errors.js';
import type { Caller } from './caller.js';
import type { StreamedResponse } from './client.js';

/** The service refused a status change, or the request is in a state that allows no such step (exit 7). */
export class RequestStateError extends SvcError {
  override readonly exitCode = ExitCode.conflict;
}

/** No such return request in the caller's company's queue (exit 6): the domain names the company and where to look (credit-notes/request-grant.ts). */
export class RequestNotFoundError extends NotFoundError {}

/** The outstanding return requests of the caller's company, as the service lists them. */
export function listReturnRequests(caller: Caller): Promise<QueueItem[]> {
  return caller.api.request({ method: 'GET', path: '/credit-note', auth: caller.auth, schema: QueueItems });
}

/**
 * The same list as it arrives, for reading a long queue while it downloads
 * (credit-notes/queue.ts); `read` starts over if the download breaks half-way.
 */
export function streamReturnRequests<R>(caller: Caller, read: (res: StreamedResponse) => Promise<R>): Promise<R> {
  return caller.api.requestStream({ method: 'GET', path: '/credit-note', auth: caller.auth }, read);
}

/** One queue item by its requestId; NotFoundError (exit 6) when the queue does not hold it. */
export async function findReturnRequest(caller: Caller, requestId: string): Promise<QueueItem> {
  const item = (await listReturnRequests(caller)).find((i) => i.requestId === requestId);
  if (item) return item;
  throw new RequestNotFoundError(`no return request ${requestId} in the queue`, {
    hint: 'see the outstanding requests with `svc credit-note poll`',
  });
}

/**
 * `PATCH /credit-note/requests/{id}/status`. Setting the same status again is harmless
 * (docs/interface-decisions.md#return-request-moves), so a lost answer is simply asked again. A refused move (409) becomes a
 * RequestStateError carrying the service's account of the current state and allowed moves.
 * `grantFlag`: ` --grant …` for the commands its hints name, when the caller's company is not
 * the one a command acts for untold (the domain's grantFlagOf says which).
 */
export async function setReturnRequestStatus(
  caller: Caller,
  requestId: string,
  status: SettableQueueItemStatus,
  grantFlag: string,
): Promise<StatusUpdateResponse> {
  try {
    return await caller.api.request({
      method: 'PATCH',
      path: `/credit-note/requests/${encodeURIComponent(requestId)}/status`,
      body: { status },
      auth: caller.auth,
      schema: StatusUpdateResponse,
      retry: true,
    });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 404) {
      throw new RequestNotFoundError(`no return request ${requestId}`, {
        hint: `see the outstanding requests with \`svc credit-note poll${grantFlag}\``,
        cause: error,
      });
    }
    if (error.status !== 409) throw error;
    throw new RequestStateError(`cannot move request ${requestId} to ${status}: ${error.description ?? 'the service refused the change'}`, {
      hint: `see its current status with \`svc credit-note show ${requestId}${grantFlag}\``,
      cause: error,
    });
  }
}

/** The credit note template, exactly as the service returned it (its hash is the templateHash). */
export function createCreditNoteTemplate(caller: Caller, request: CreditNoteTemplateRequest): Promise<UblDocument> {
  return caller.api.request({
    method: 'POST',
    path: '/credit-note/template',
    body: request,
    auth: caller.auth,
    schema: UblDocument,
    // A template issues nothing: asking again after a 5xx is harmless.
    retry: true,
  });
}

/** The Idempotency-Key lets the client retry without issuing the credit note twice. */
export function submitEncryptedCreditNote(
  caller: Caller,
  submission: CreditNoteSubmission,
  idempotencyKey: string,
): Promise<CreditNoteSubmissionResult> {
  return caller.api.request({
    method: 'POST',
    path: '/credit-note/encrypted',
    body: submission,
    auth: caller.auth,
    schema: CreditNoteSubmissionResult,
    idempotencyKey,
  });
}
