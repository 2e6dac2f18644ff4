// `svc webhook verify`: checks an X-Service-Signature over a saved raw body, offline, with
// the profile's secrets or one given with --secret-stdin (piped, or typed at a hidden prompt
// when stdin is a terminal). Exit 0 when valid; when not, exit 2 with the reason, as a
// receiver refuses it (400 invalid_signature); the secrets are never printed.
import { readSecretFromStdinOrPrompt } from '../../auth/credentials.js';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { REQUEST_BYTES } from '../../io/bounded-read.js';
import { readBytesInput } from '../../io/input.js';
import { println } from '../../io/streams.js';
import { SIGNATURE_TOLERANCE_SECONDS, verifySignature, type SignatureFailure } from '../../webhook/signature.js';
import { knownSecrets } from '../../webhook/subscriptions.js';

export interface VerifyOptions {
  file: string;
  signature: string;
  secretStdin?: boolean | undefined;
}

const REASONS: Readonly<Record<SignatureFailure, string>> = {
  missing: 'the signature is empty',
  malformed: 'the signature is not of the form t=<unix seconds>,v1=<hex>[,v1=<hex>...]',
  no_match: 'no secret produces this signature over these bytes: the secret is another, or the file is not the exact body that was signed',
  stale: `the signature matches, but it was made more than ${SIGNATURE_TOLERANCE_SECONDS} s ago, so a receiver refuses it as a possible replay`,
  future: `the signature matches, but its time is more than ${SIGNATURE_TOLERANCE_SECONDS} s ahead of this clock`,
};

/** What to do about each reason: the secret, the bytes, or the clock. */
const HINTS: Readonly<Record<SignatureFailure, string>> = {
  missing: 'pass the X-Service-Signature header of the delivery as --signature',
  malformed: 'pass the whole X-Service-Signature header value, e.g. --signature "t=1700000000,v1=5f3a…"',
  no_match: 'check the body saved byte for byte (--file) and the secret: `svc webhook list` shows the subscriptions, --secret-stdin takes another secret',
  stale: 'a receiver refuses it too; if it was just sent, check this machine\'s clock',
  future: 'check the clock of this machine and of the sender',
};

export async function run(opts: VerifyOptions, f: Factory): Promise<void> {
  if (opts.file === '-' && opts.secretStdin) {
    throw new UsageError('--file - and --secret-stdin cannot both read standard input', { hint: 'save the body to a file, or set SVC_WEBHOOK_SECRET' });
  }
  const body = await readBytesInput(opts.file, f, { bytes: REQUEST_BYTES, why: 'a receiver refuses delivery bodies over 1 MiB' });
  const secrets = opts.secretStdin
    ? [
        await readSecretFromStdinOrPrompt(f, {
          what: 'the signing secret',
          message: 'Webhook signing secret:',
          flag: 'the secret through a pipe: printf %s "$SECRET" | svc webhook verify --secret-stdin ...',
          hint: 'pipe it in: printf %s "$SECRET" | svc webhook verify --secret-stdin ...',
        }),
      ]
    : await knownSecrets(f);
  if (secrets.length === 0) {
    throw new UsageError('this profile knows no webhook signing secret', { hint: 'pass --secret-stdin, set SVC_WEBHOOK_SECRET, or run `svc webhook subscribe`' });
  }
  const check = verifySignature(opts.signature, body, secrets, Math.floor(f.clock.now() / 1000));
  if (check.ok) {
    const signedAt = new Date(check.timestamp * 1000).toISOString();
    if (f.io.json) writeJson(f.io, { valid: true, timestamp: check.timestamp, signedAt });
    else println(f.io, `valid: signed at ${signedAt}`);
    return;
  }
  if (f.io.json) writeJson(f.io, { valid: false, reason: check.reason });
  throw new UsageError(`--signature: invalid signature (${check.reason}): ${REASONS[check.reason]}`, { hint: HINTS[check.reason] });
}
