import type { Command } from 'commander';
import type { CommandContext } from '../context.js';
import { listGrantOption, grantOption } from '../grant-flag.js';
import { identifierOptions, type IdentifierFlags } from '../recipient/index.js';

export function registerReceipt(program: Command, ctx: CommandContext): void {
  const receipt = program.command('receipt').description('issue end-to-end encrypted receipts');
  grantOption(receipt.command('template'))
    .description('validate a receipt and get its template and templateHash from the service')
    .requiredOption('--file <path>', 'template request JSON, or - for stdin')
    .option('--issue-date <when>', "the receipt's issueDate instead of the file's: an ISO 8601 time, or now")
    .option('--strict', 'refuse members the interface does not name (default: a warning naming each)')
    .action((flags: { file: string; issueDate?: string; strict?: boolean }, cmd: Command) => ctx.run(cmd, () => import('./template.js'), flags));
  identifierOptions(grantOption(receipt.command('send')).description('encrypt a receipt for every device of a customer and submit it'))
    .option('--file <path>', 'template request JSON, or - for stdin')
    .option('--customer <path>', 'customer details JSON injected into the document')
    .option('--issue-date <when>', "the receipt's issueDate instead of the file's: an ISO 8601 time, or now")
    .option('--strict', 'refuse members the interface does not name (default: a warning naming each)')
    .option('--store <id>', 'store the receipt is issued for')
    .option('--dry-run', 'build and encrypt, but do not submit')
    .option('--idempotency-key <key>', 'Idempotency-Key of the submission (default: derived from the issuer and the document number)')
    .option('--abandon-pending', 'close a submission of this receipt left under way instead of resuming it')
    .option('--batch <file.jsonl>', 'issue one receipt per line (template + recipient); NDJSON results on stdout')
    .option('--concurrency <n>', 'receipts in flight with --batch (default 8)')
    .option('--max-lines <n>', 'lines a --batch file may have (default 10000; each line at most 1 MiB)')
    .action((flags: IdentifierFlags & { file?: string; customer?: string; store?: string; dryRun?: boolean; idempotencyKey?: string; abandonPending?: boolean; batch?: string; concurrency?: string; maxLines?: string; issueDate?: string; strict?: boolean }, cmd: Command) =>
      ctx.run(cmd, () => import('./send.js'), flags),
    );
  grantOption(receipt.command('email'))
    .description('send a receipt to a customer by email as a PDF')
    .requiredOption('--file <path>', 'template request JSON, or - for stdin')
    .requiredOption('--to <email>', 'recipient address')
    .option('--issue-date <when>', "the receipt's issueDate instead of the file's: an ISO 8601 time, or now")
    .option('--strict', 'refuse members the interface does not name (default: a warning naming each)')
    .action((flags: { file: string; to: string; issueDate?: string; strict?: boolean }, cmd: Command) => ctx.run(cmd, () => import('./email.js'), flags));
  listGrantOption(receipt.command('list'))
    .description("receipts sent to customers' devices, from this profile's ledger (this machine's, or the team's database; emailed PDFs are not kept)")
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./list.js'), {}));
}
