// Who records a decision or a document in the ledger, for a colleague reading it on another machine.
import { hostname, userInfo } from 'node:os';

/** Who records a decision: user@host, for a colleague reading it on another machine. */
export function recorder(): string {
  let user = 'someone';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (a container's uid): the host still says where.
  }
  return `${user}@${hostname()}`;
}
