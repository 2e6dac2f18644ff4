// One listener per journal: two `webhook listen` on one profile would both answer
// `duplicate: false` to the same delivery and process it twice, so the second is refused,
// naming the first (pid, address). The claim is an operating-system lock (src/store/lock.ts):
// a listener that dies, however it dies, leaves none behind.
import { ExitCode, SvcError } from '../errors.js';
import { describeHolder, tryLock, type HeldLock } from '../store/lock.js';

export class JournalInUseError extends SvcError {
  override readonly exitCode = ExitCode.conflict;
}

export async function claimJournal(journalPath: string): Promise<HeldLock> {
  const claim = await tryLock(`${journalPath}.lock`, { journal: journalPath });
  if (!('heldBy' in claim)) return claim;
  const holder = claim.heldBy;
  const where = typeof holder?.address === 'string' ? ` listening on ${holder.address}` : '';
  throw new JournalInUseError(`another \`svc webhook listen\` (${describeHolder(holder)}${where}) is using the webhook journal ${journalPath}`, {
    hint: 'one listener per profile: stop that one first, or run this one with another --profile (each profile has its own journal and subscription)',
  });
}
