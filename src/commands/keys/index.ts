import type { Command } from 'commander';
import type { CommandContext } from '../context.js';

export function registerKeys(program: Command, ctx: CommandContext): void {
  const keys = program.command('keys').description('RSA key pairs that decrypt what is encrypted for this integration');
  keys
    .command('generate')
    .description('generate an RSA-2048 key pair (private key to the keychain)')
    .option('--upload', 'register the public key with the service')
    .action((flags: { upload?: boolean }, cmd: Command) =>
      ctx.run(cmd, () => import('./generate.js'), { upload: Boolean(flags.upload) }),
    );
  keys
    .command('list')
    .description('list local key pairs by fingerprint (current and historical)')
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./list.js'), {}));
  keys
    .command('upload')
    .description('register a public key with the service (default: the current key)')
    .argument('[key-id]')
    .action((keyId: string | undefined, _flags, cmd: Command) => ctx.run(cmd, () => import('./upload.js'), { keyId }));
  keys
    .command('rotate')
    .description('generate and upload a new key; older keys stay for decrypting older data')
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./rotate.js'), {}));
  keys
    .command('show-remote')
    .description('show the public key the service has registered')
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./show-remote.js'), {}));
}
