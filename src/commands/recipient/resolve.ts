// `svc recipient resolve (--email | --phone | --iban | --card | --receipt)`: the devices a
// receipt for that customer would be encrypted for.
import { writeReceiptsCaller } from '../../auth/caller.js';
import { callerForFound } from '../../grants/found.js';
import { resolveRecipient } from '../../api/recipient.js';
import type { Recipient } from '../../contract/recipient.js';
import { keyFingerprint } from '../../crypto/keys.js';
import type { Factory } from '../../factory.js';
import { writeJson, writeList, writeRecord } from '../../io/output.js';
import { withSpinner } from '../../io/spinner.js';
import { note } from '../../io/streams.js';
import { resolveReceiptId } from '../../receipts/receipt-id.js';
import { lookupFromFlags, type LookupFlags } from './lookup.js';

export type ResolveOptions = LookupFlags;

export async function run(opts: ResolveOptions, f: Factory): Promise<void> {
  // A receipt may be named by its document number or a prefix (receipt-id.ts).
  const receipt = opts.receipt === undefined ? undefined : await resolveReceiptId(f, opts.receipt);
  const lookup = lookupFromFlags({ ...opts, receipt }, ['email', 'phone', 'iban', 'card', 'receipt']);
  // A receipt sent for another company is that company's to resolve.
  const caller = receipt !== undefined ? await callerForFound(f, 'receipts', [receipt]) : await writeReceiptsCaller(f);
  const match = await withSpinner(f.io, `resolving ${lookup.kind} ${lookup.display}`, () => resolveRecipient(caller, lookup));
  if (f.io.json) return writeJson(f.io, match);
  writeRecord(
    f.io,
    [
      ['matchId', match.matchId],
      ['formats', match.acceptedFormats.join(', ') || '-'],
    ],
    match,
  );
  if (match.recipients.length === 0) note(f.io, 'the customer has no device that can receive receipts');
  await writeList(f.io, match.recipients, [
    { header: 'RECIPIENT ID', value: (r) => r.recipientId },
    { header: 'TYPE', value: (r) => r.receiverType },
    { header: 'ALGORITHM', value: (r) => r.keyAlgorithm },
    { header: 'KEY ID', value: fingerprintOf },
  ]);
}

/** The key's fingerprint, or a marker: a key this svc cannot parse is shown, not fatal. */
function fingerprintOf(recipient: Pick<Recipient, 'publicKey'>): string {
  try {
    return keyFingerprint(recipient.publicKey);
  } catch {
    return '(not an RSA public key)';
  }
}
