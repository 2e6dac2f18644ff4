import type { Command } from 'commander';
import { collect, SETTABLE_STATUSES } from '../../completion/values.js';
import type { CommandContext } from '../context.js';
import { fanOutOptions, grantOption, listGrantOption } from '../grant-flag.js';

/** Left out on a terminal: a list of the open requests to choose from. */
const PICKED = 'left out on a terminal: chosen from the open requests';
const CREDITED_ELSEWHERE = 'the customer was credited another way: complete a request with no credit note issued by `svc credit-note issue`';

export function registerCreditNote(program: Command, ctx: CommandContext): void {
  const cn = program.command('credit-note').description('work the return queue and issue credit notes');
  fanOutOptions(grantOption(cn.command('poll')))
    .description('fetch and decrypt the queue of customer return requests')
    .option('--status <status>', 'only these statuses (repeatable, or comma-separated; default: PENDING, ACCEPTED, PARTIALLY_ACCEPTED)', collect)
    .option('--all', 'every status, closed ones too')
    .option('--receipt <id>', "only requests of this receipt: its document number (R-2026-0008) or serviceReceiptId, or a unique prefix")
    .option('--customer <text>', 'only requests of receipts sent to this customer: some of the email, phone or name given with the receipt')
    .option('--older-than <duration>', 'only requests at least this old, e.g. 3d')
    .option('--newer-than <duration>', 'only requests at most this old, e.g. 12h')
    .option('--reason <code>', 'only requests with a line of this reason: DAMAGED, DEFECTIVE, WRONG_ITEM, NOT_AS_DESCRIBED, NO_LONGER_NEEDED or OTHER')
    .option('--refund <preference>', 'only requests asking this refund: ORIGINAL_PAYMENT_METHOD, BANK_TRANSFER or STORE_CREDIT')
    .option('--sort <key>', 'created, age, status or receipt')
    .option('--reverse', 'the other way round')
    .option('--limit <n>', 'at most this many')
    .option('--watch', 'on a terminal, the queue screen; piped, the changes')
    .option('--interval <seconds>', 'seconds between polls with --watch', '10')
    .option('--no-decrypt', 'show the queue without decrypting')
    .action((flags: { allGrants?: boolean; grants?: string; concurrency?: string; status?: string[]; all?: boolean; receipt?: string; customer?: string; olderThan?: string; newerThan?: string; reason?: string; refund?: string; sort?: string; reverse?: boolean; limit?: string; watch?: boolean; interval: string; decrypt: boolean }, cmd: Command) => {
      // An interval with nothing to repeat is a mistake, not a no-op.
      if (!flags.watch && cmd.getOptionValueSource('interval') === 'cli') cmd.error('error: --interval goes with --watch', { code: 'svc.usage', exitCode: 2 });
      return ctx.run(cmd, () => import('./poll.js'), flags);
    },
    );
  grantOption(cn.command('show'))
    .description('show one decrypted return request in full')
    .argument('[request-id]', PICKED)
    .option('--reveal', 'show bank account details unmasked')
    .action((requestId: string | undefined, flags: { reveal?: boolean }, cmd: Command) =>
      ctx.run(cmd, () => import('./show.js'), { requestId, reveal: Boolean(flags.reveal) }),
    );
  grantOption(cn.command('accept'))
    .description('accept return requests (IDs or unique prefixes of 6+ characters)')
    .argument('[request-id...]', PICKED)
    .option('--partial', 'accept only part of it (PARTIALLY_ACCEPTED); the part is named with --item, or asked for on a terminal')
    .option('--item <product-id:qty>', 'the part accepted, product by product (repeatable; implies --partial); recorded, and `issue` credits at most it', collect)
    .action((requestIds: string[], flags: { partial?: boolean; item?: string[] }, cmd: Command) =>
      ctx.run(cmd, () => import('./status.js').then((m) => m.accept), { requestIds, partial: Boolean(flags.partial), item: flags.item }),
    );
  grantOption(cn.command('reject'))
    .description('reject return requests; final, so a terminal asks first')
    .argument('[request-id...]', PICKED)
    .option('--reason <text>', "why; kept in the ledger, on this machine or in the team's database (the service takes no reason)")
    .option('--yes', 'do not ask for confirmation (needed without a terminal)')
    .action((requestIds: string[], flags: { yes?: boolean; reason?: string }, cmd: Command) =>
      ctx.run(cmd, () => import('./status.js').then((m) => m.reject), { requestIds, yes: flags.yes, reason: flags.reason }),
    );
  grantOption(cn.command('complete'))
    .description('mark accepted returns as completed; final, so a terminal asks first')
    .argument('[request-id...]', PICKED)
    .option('--yes', 'do not ask for confirmation (needed without a terminal)')
    .option('--credited-elsewhere', CREDITED_ELSEWHERE)
    .action((requestIds: string[], flags: { yes?: boolean; creditedElsewhere?: boolean }, cmd: Command) =>
      ctx.run(cmd, () => import('./status.js').then((m) => m.complete), { requestIds, yes: flags.yes, creditedElsewhere: flags.creditedElsewhere }),
    );
  grantOption(cn.command('status'))
    .description('set the status of a return request')
    .argument('[request-id]', PICKED)
    .argument('[status]', 'ACCEPTED, PARTIALLY_ACCEPTED, REJECTED or COMPLETED (required)')
    .usage('[options] [request-id] <status>')
    .option('--reason <text>', "with REJECTED: why; kept in the ledger, on this machine or in the team's database")
    .option('--yes', 'REJECTED and COMPLETED are final: do not ask (needed without a terminal)')
    .option('--credited-elsewhere', `with COMPLETED: ${CREDITED_ELSEWHERE}`)
    .action((first: string | undefined, second: string | undefined, flags: { yes?: boolean; reason?: string; creditedElsewhere?: boolean }, cmd: Command) => {
      // One argument is the STATUS when it is one (the ID is then chosen), else the ID without its STATUS.
      const alone = second === undefined && first !== undefined && isSettableStatus(first);
      const requestId = alone ? undefined : first;
      const status = alone ? first : second;
      if (status === undefined) return (cmd as unknown as { missingArgument(name: string): void }).missingArgument('status');
      return ctx.run(cmd, () => import('./status.js'), { requestId, status, yes: flags.yes, reason: flags.reason, creditedElsewhere: flags.creditedElsewhere });
    });
  grantOption(cn.command('issue'))
    .description('validate a return against your records and issue the credit note')
    .argument('[request-id]', PICKED)
    .option('--original <path>', 'the original receipt record, if this machine did not issue it')
    .option('--document-number <n>', 'document number of the credit note')
    .option('--item <product-id:qty>', 'credit only this much of a requested product (repeatable; required when PARTIALLY_ACCEPTED)', collect)
    .option('--yes', 'do not ask for confirmation')
    .option('--dry-run', 'run every check and show the credit note; issue nothing')
    .option('--complete', 'set the request COMPLETED afterwards')
    .option('--idempotency-key <key>', 'Idempotency-Key of the submission (default: derived from the issuer and the document number)')
    .option('--abandon-pending', "close this request's credit note submission left under way instead of resuming it")
    .action((requestId: string | undefined, flags: { original?: string; documentNumber?: string; item?: string[]; yes?: boolean; dryRun?: boolean; complete?: boolean; idempotencyKey?: string; abandonPending?: boolean }, cmd: Command) =>
      ctx.run(cmd, () => import('./issue.js'), { requestId, ...flags }),
    );
  fanOutOptions(grantOption(cn.command('triage')))
    .description('work through the open requests, oldest first, one key each (terminal only)')
    .option('--status <status>', 'only these of the open statuses (repeatable, or comma-separated)', collect)
    .option('--receipt <id>', "only requests of this receipt: its document number or serviceReceiptId, or a unique prefix")
    .option('--customer <text>', 'only requests of receipts sent to this customer: some of the email, phone or name')
    .option('--older-than <duration>', 'only requests at least this old, e.g. 3d')
    .option('--newer-than <duration>', 'only requests at most this old, e.g. 12h')
    .option('--reason <code>', 'only requests with a line of this reason code')
    .option('--refund <preference>', 'only requests asking this refund')
    .action((flags: { status?: string[]; receipt?: string; customer?: string; olderThan?: string; newerThan?: string; reason?: string; refund?: string; allGrants?: boolean; grants?: string; concurrency?: string }, cmd: Command) => {
      const { status, receipt, customer, olderThan, newerThan, reason, refund, allGrants, grants, concurrency } = flags;
      return ctx.run(cmd, () => import('./triage.js'), { status, receipt, customer, olderThan, newerThan, reason, refund, allGrants, grants, concurrency });
    });
  listGrantOption(cn.command('list'))
    .description("credit notes issued, from this profile's ledger (this machine's, or the team's database)")
    .option('--receipt <id>', "only those of one receipt: its document number or serviceReceiptId (a unique prefix of 6+)")
    .action((flags: { receipt?: string }, cmd: Command) => ctx.run(cmd, () => import('./list.js'), { receipt: flags.receipt }));
  grantOption(cn.command('template'))
    .description('validate a credit note and get its template and templateHash')
    .requiredOption('--file <path>', 'template request JSON, or - for stdin')
    .option('--strict', 'refuse members the interface does not name (default: a warning naming each)')
    .action((flags: { file: string; strict?: boolean }, cmd: Command) => ctx.run(cmd, () => import('./template.js'), flags));
}

function isSettableStatus(value: string): boolean {
  return (SETTABLE_STATUSES as readonly string[]).includes(value.trim().toUpperCase());
}
