import type { Command } from 'commander';
import type { CommandContext } from '../context.js';

const REPLACE_YES = 'replace a registered key held only on another machine, without asking (needed without a terminal)';

export function registerKeys(program: Command, ctx: CommandContext): void {
  const keys = program.command('keys').description('RSA key pairs that decrypt what is encrypted for this integration');
  keys
    .command('generate')
    .description('generate an RSA-2048 key pair (private key to the keychain)')
    .option('--upload', 'register the public key with the service')
    .option('--yes', `with --upload: ${REPLACE_YES}`)
    .action((flags: { upload?: boolean; yes?: boolean }, cmd: Command) =>
      ctx.run(cmd, () => import('./generate.js'), { upload: Boolean(flags.upload), yes: Boolean(flags.yes) }),
    );
  keys
    .command('list')
    .description('list local key pairs by fingerprint (current and historical)')
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./list.js'), {}));
  keys
    .command('upload')
    .description('register a public key with the service (default: the current key)')
    .argument('[key-id]')
    .option('--yes', REPLACE_YES)
    .action((keyId: string | undefined, flags: { yes?: boolean }, cmd: Command) => ctx.run(cmd, () => import('./upload.js'), { keyId, yes: Boolean(flags.yes) }));
  keys
    .command('rotate')
    .description('generate and upload a new key; older keys stay for decrypting older data')
    .option('--yes', REPLACE_YES)
    .action((flags: { yes?: boolean }, cmd: Command) => ctx.run(cmd, () => import('./rotate.js'), { yes: Boolean(flags.yes) }));
  keys
    .command('export')
    .description("write a private key to a file (PKCS#8 PEM, 0600) for a colleague's machine to import")
    .argument('[key-id]', 'default: the current key')
    .option('--file <path>', 'the file to create (never overwritten), or - for standard output when piped')
    .action((keyId: string | undefined, flags: { file?: string }, cmd: Command) => ctx.run(cmd, () => import('./export.js'), { keyId, file: flags.file }));
  keys
    .command('import')
    .description('keep a private key exported on another machine in this one\'s secret store (the registered key is unchanged)')
    .option('--file <path>', 'the PEM file `svc keys export` wrote, or - for standard input')
    .action((flags: { file?: string }, cmd: Command) => ctx.run(cmd, () => import('./import.js'), { file: flags.file }));
  keys
    .command('show-remote')
    .description('show the public key the service has registered')
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./show-remote.js'), {}));
}
