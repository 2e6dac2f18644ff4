// Where the webhook receiver's decryption worker is (src/webhook/decryptor.ts).
import { bundledWorker } from '../workers/bundled.js';

/** dist/crypto/decrypt-worker.js, when svc runs from the bundle (see workers/bundled.ts). */
export function bundledWorkerFile(from: string | URL = import.meta.url): string | undefined {
  return bundledWorker('crypto/decrypt-worker.js', from);
}
