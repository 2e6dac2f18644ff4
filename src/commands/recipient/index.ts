import type { Command } from 'commander';
import type { CommandContext } from '../context.js';
import { grantOption } from '../grant-flag.js';

export interface IdentifierFlags {
  email?: string;
  phone?: string;
  iban?: string;
  card?: string;
}

/** The identification flags shared by `recipient resolve` and `receipt send`. */
export function identifierOptions(cmd: Command): Command {
  return cmd
    .option('--email <email>', 'customer email address')
    .option('--phone <phone>', 'customer phone number (E.164)')
    .option('--iban <iban>', 'customer IBAN')
    .option('--card <number>', 'customer card number');
}

export function registerRecipient(program: Command, ctx: CommandContext): void {
  const recipient = program.command('recipient').description('find the customer devices a receipt goes to');
  identifierOptions(grantOption(recipient.command('resolve')).description('resolve a recipient from an identifier'))
    .option('--receipt <service-receipt-id>', "the current devices of a receipt's owner (its serviceReceiptId, document number, or a unique prefix)")
    .action((flags: IdentifierFlags & { receipt?: string }, cmd: Command) => ctx.run(cmd, () => import('./resolve.js'), flags));
}
