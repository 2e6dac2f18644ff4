// `svc keys generate [--upload]`: the new pair becomes current; older pairs stay to decrypt
// what was encrypted for them.
import { clientApplicationApi } from '../../keys/client-application.js';
import { generateAndStore, requireKeyStore } from '../../keys/keystore.js';
import { confirmReplacement } from '../../keys/registered.js';
import type { Factory } from '../../factory.js';
import { writeRecord } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { generateAndRegister, keyFields } from './register.js';

export interface GenerateOptions {
  upload: boolean;
  /** --yes: replace a registered key held on another machine without asking. */
  yes: boolean;
}

export async function run(opts: GenerateOptions, f: Factory): Promise<void> {
  // Before any credential is asked for or any key made: a private key kept nowhere is refused.
  await requireKeyStore(f);
  const app = opts.upload ? await clientApplicationApi(f) : undefined;
  if (app) await confirmReplacement(f, app, { yes: opts.yes, command: 'svc keys generate --upload' });
  const key = app ? (await generateAndRegister(f, app)).key : await generateAndStore(f);
  writeRecord(f.io, keyFields(f, key), key);
  note(f.io, `private key stored: ${(await f.secrets()).describe()}`);
  if (!app) note(f.io, `the service still encrypts for its registered key; upload this one with \`svc keys upload ${key.keyId}\``);
}
