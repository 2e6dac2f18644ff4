// `POST /recipient/resolve` (docs/interface-decisions.md#recipients-receipts-and-credit-notes, #recipient-resolution). A card
// number or IBAN is sent once, in the body; no message of this module carries it in full.
import { ResolveRecipientResponse, type ResolveRecipientRequest } from '../contract/recipient.js';
import { ApiError, NotFoundError } from '../errors.js';
import { maskLast4 } from '../io/redact.js';
import type { Caller } from './caller.js';

const RESOLVE_PATH = '/recipient/resolve';

/** The identifier a customer is resolved by, and how messages may name it. */
export interface RecipientLookup {
  request: ResolveRecipientRequest;
  /** "email", "phone", "IBAN", "card" or "receipt". */
  kind: string;
  /** The value as it may be shown: card numbers and IBANs masked to their last 4. */
  display: string;
  /** A value that must never be shown in full (card number, IBAN). */
  secret?: string;
}

export async function resolveRecipient(caller: Caller, lookup: RecipientLookup): Promise<ResolveRecipientResponse> {
  try {
    return await caller.api.request({
      method: 'POST',
      path: RESOLVE_PATH,
      body: lookup.request,
      auth: caller.auth,
      schema: ResolveRecipientResponse,
      // A lookup changes nothing, so a 5xx or a dropped connection is simply asked again.
      retry: true,
    });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const safe = lookup.secret === undefined ? error : withoutSecret(error, lookup.secret);
    if (safe.status !== 404) throw safe;
    // A receipt always has its owner, devices or not (an owner without one is a 200 with no
    // recipients): a 404 for one is a receipt this company never issued, not the customer's devices.
    if (lookup.kind === 'receipt') {
      throw new NotFoundError(`receipt ${lookup.display} not found: the service knows no receipt by that ID issued by this company`, {
        hint: 'check the ID (`svc receipt list` shows the receipts sent from here; a receipt of another company needs --grant)',
        cause: safe,
      });
    }
    throw new NotFoundError(`no recipient matches that ${lookup.kind}`, {
      // `receipt send --email` is a lookup too; the command that emails a PDF is another one, with --to.
      hint: `check the ${lookup.kind}; the customer needs a device registered with the service, or email the receipt as a PDF: \`svc receipt email --file RECEIPT.json --to ${lookup.kind === 'email' ? lookup.display : 'ADDRESS'}\``,
      cause: safe,
    });
  }
}

// The service's error text may quote the request; the number is masked before anyone sees it.
function withoutSecret(error: ApiError, secret: string): ApiError {
  const hide = (text: string) => text.split(secret).join(maskLast4(secret));
  if (!error.message.includes(secret)) return error;
  return new ApiError({
    status: error.status,
    code: error.code,
    description: error.description === undefined ? undefined : hide(error.description),
    retryAfterMs: error.retryAfterMs,
    details: error.details.map((d) => ({ path: d.path, message: hide(d.message) })),
    method: 'POST',
    path: RESOLVE_PATH,
  });
}
