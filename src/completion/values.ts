// What a flag's value or a positional argument can be, for completion (`svc __complete`):
// fixed lists the commands themselves accept, and live values read from this machine only
// (config.json, the state directory, the embedded ledger), never from the network. The
// shell scripts ask for the slots listed here (tree.ts marks them dynamic); a test keeps the
// fixed lists equal to the contract's enums, which are not imported here to keep
// `svc __complete` light.

/**
 * Collects a repeatable flag (`--item a --item b`) into an array: the command definitions give
 * it to each flag that may be repeated, and tree.ts knows a flag repeats by it.
 */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export type LiveSource = 'profiles' | 'grants' | 'grant-selectors' | 'request-ids' | 'receipt-ids' | 'event-ids' | 'subscription-ids';

export interface SlotValues {
  /** A fixed list. */
  readonly values?: readonly string[];
  /** Read from this machine when asked. */
  readonly live?: LiveSource;
}

export const QUEUE_STATUSES = ['PENDING', 'ACCEPTED', 'PARTIALLY_ACCEPTED', 'REJECTED', 'COMPLETED', 'CANCELLED'] as const;
export const SETTABLE_STATUSES = ['ACCEPTED', 'PARTIALLY_ACCEPTED', 'REJECTED', 'COMPLETED'] as const;
export const REFUND_PREFERENCES = ['ORIGINAL_PAYMENT_METHOD', 'BANK_TRANSFER', 'STORE_CREDIT'] as const;
export const REASON_CODES = ['DAMAGED', 'DEFECTIVE', 'WRONG_ITEM', 'NOT_AS_DESCRIBED', 'NO_LONGER_NEEDED', 'OTHER'] as const;
export const WEBHOOK_EVENTS = ['RETURN_REQUESTED', 'CREDIT_NOTE_CREATED'] as const;
export const SCOPES = ['write_receipts', 'read_stores', 'manage_client_applications'] as const;
export const CONFIG_KEY_NAMES = ['base-url', 'client-id', 'redirect-uri', 'grant', 'scopes', 'database-url'] as const;
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
/** What `svc help` answers besides a command path (help/command.ts). */
export const HELP_TOPICS = ['environment', 'exit-codes'] as const;
export const HTTP_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;

// By flag name, wherever the flag is (unless a command path names it first).
const FLAGS: Readonly<Record<string, SlotValues>> = {
  '--profile': { live: 'profiles' },
  // --grant takes a tax ID: one a person can read, and the one bash (which shows no descriptions) offers.
  '--grant': { live: 'grant-selectors' },
  '--receipt': { live: 'receipt-ids' },
  '--status': { values: QUEUE_STATUSES },
  '--flow': { values: ['grant', 'code'] },
  '--refund': { values: REFUND_PREFERENCES },
  '--reason': { values: REASON_CODES },
  '--events': { values: WEBHOOK_EVENTS },
  '--scope': { values: SCOPES },
  '--scopes': { values: SCOPES },
  '--sort': { values: ['created', 'age', 'status', 'receipt'] },
  // A command path first where one flag means different things: here free text, not a code.
  'credit-note reject --reason': {},
  'credit-note status --reason': {},
};

// By argument name; a command path first where one name means different things.
const ARGS: Readonly<Record<string, SlotValues>> = {
  'credit-note status status': { values: SETTABLE_STATUSES },
  'api method': { values: HTTP_METHODS },
  'request-id': { live: 'request-ids' },
  'grant-id': { live: 'grants' },
  'service-receipt-id': { live: 'receipt-ids' },
  'event-id': { live: 'event-ids' },
  'webhook unsubscribe id': { live: 'subscription-ids' },
  key: { values: CONFIG_KEY_NAMES },
  shell: { values: SHELLS },
};

/** What a slot of the command at `path` takes: `--flag`, or an argument's name. */
export function slotValues(path: string, slot: string): SlotValues | undefined {
  if (slot.startsWith('-')) return FLAGS[`${path} ${slot}`] ?? FLAGS[slot];
  return ARGS[`${path} ${slot}`] ?? ARGS[slot];
}
