// What an event line says beyond the delivery itself, for `webhook listen` and `webhook
// replay` alike: the request a RETURN_REQUESTED event is in the queue, and the name of the
// company it is of (for a profile acting for several).
import type { Factory } from '../factory.js';
import { note } from '../io/streams.js';

/**
 * The queue's request ID of a RETURN_REQUESTED event, so that whoever watches can act on it:
 * the event carries the request's ciphertext, and so does its queue item, in the queue of the
 * company the delivery names (a platform's listener hears from every Grant of the profile).
 * A company's queue is listed again when a ciphertext is not in its last listing (at most
 * every 2 s); a company whose queue cannot be listed (no write_receipts, a revoked Grant) is
 * told so once, and not asked again.
 */
export function requestIdFinder(f: Factory, profile: string): (ciphertext: string, companyId: string | undefined, receivedAt: string) => Promise<string | undefined> {
  interface Queue {
    byCiphertext: Map<string, string>;
    /** When the last listing was sent (this clock, ms), and the one under way. */
    listedAt: number;
    listing: { done: Promise<void>; sentAt: number } | undefined;
    /** A listing waiting for the one under way. */
    next?: Promise<void> | undefined;
    disabled: boolean;
  }
  const queues = new Map<string, Queue>();
  let grantOf: Promise<Map<string, string>> | undefined;
  const grantOfCompany = async (companyId: string | undefined): Promise<string | undefined> => {
    if (companyId === undefined) return undefined;
    grantOf ??= (async () => {
      const [{ readAuthorizations }, { grantEntries }] = await Promise.all([import('../auth/profile.js'), import('../auth/grant-select.js')]);
      return new Map(grantEntries(readAuthorizations(await f.config(), profile)).map((e) => [e.companyId, e.id]));
    })();
    return (await grantOf).get(companyId);
  };
  return async (ciphertext, companyId, receivedAt) => {
    // A company this profile holds no Grant of is looked for in the default Grant's queue, as before.
    const grant = await grantOfCompany(companyId);
    const key = grant ?? '';
    let queue = queues.get(key);
    if (queue === undefined) queues.set(key, (queue = { byCiphertext: new Map(), listedAt: Number.NEGATIVE_INFINITY, listing: undefined, disabled: false }));
    const q = queue;
    const known = q.byCiphertext.get(ciphertext);
    if (known !== undefined || q.disabled) return known;
    // The request was queued before its delivery arrived, so a listing sent after the delivery
    // was received holds it while it is queued. A listing sent before may predate it (two
    // deliveries moments apart: the second line had no request ID), so the queue is listed
    // again; a delivery older than the last listing (a backlog of requests since completed)
    // is not, so catching up costs no listing per delivery. A listing under way is shared.
    const arrived = Date.parse(receivedAt);
    const list = () => {
      const sentAt = f.clock.now();
      const done = (async () => {
        const [{ writeReceiptsCaller }, { listReturnRequests }] = await Promise.all([import('../auth/caller.js'), import('../api/credit-note.js')]);
        const items = await listReturnRequests(await writeReceiptsCaller(f, grant));
        // Replaced, not added to: a listener that runs for months keeps only the queue as it is.
        q.byCiphertext = new Map(items.map((i) => [i.encryptedCreditNoteInitiationRequest, i.requestId]));
        q.listedAt = Math.max(q.listedAt, sentAt);
      })().finally(() => {
        if (q.listing?.done === done) q.listing = undefined;
      });
      q.listing = { done, sentAt };
      return done;
    };
    try {
      if (q.listing !== undefined && q.listing.sentAt >= arrived) await q.listing.done;
      else if (!(q.listedAt >= arrived)) {
        if (q.listing === undefined) await list();
        // After the one under way (sent too early for this delivery), one more, shared too.
        else await (q.next ??= q.listing.done.then(list).finally(() => (q.next = undefined)));
      }
      return q.byCiphertext.get(ciphertext);
    } catch (error) {
      q.disabled = true;
      const whose = grant === undefined ? 'this profile cannot list the queue' : `the queue of Grant ${grant} cannot be listed`;
      note(f.io, `note: RETURN_REQUESTED lines${grant === undefined ? '' : ` of company ${companyId}`} show no request ID: ${whose} (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
      return undefined;
    }
  };
}

/**
 * For a profile acting for several companies: their legal names by company ID, so that each
 * event line says whose it is. Undefined for one company (its lines need no name).
 */
export async function companyNames(f: Factory, profile: string): Promise<((companyId: string) => string | undefined) | undefined> {
  const { readAuthorizations } = await import('../auth/profile.js');
  const names = new Map(readAuthorizations(await f.config(), profile).grants.map((g) => [g.issuer_company_id, g.company_legal_name]));
  return names.size < 2 ? undefined : (companyId) => names.get(companyId) || undefined;
}
