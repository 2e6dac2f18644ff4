// Base64 per docs/interface-decisions.md#base64. Node's decoder silently skips characters outside the alphabet and
// tolerates missing padding, so every input is validated before it is decoded.

/** Thrown by `decodeBase64Strict`; crypto callers turn it into `DecryptError`. */
export class InvalidBase64Error extends TypeError {
  constructor() {
    super('not valid Base64');
    this.name = 'InvalidBase64Error';
  }
}

/** Standard alphabet, padded, no whitespace, and canonical (unused bits of the last character are zero). */
export function isBase64(s: string): boolean {
  return decodeOrUndefined(s) !== undefined;
}

/** Decodes standard padded Base64 (RFC 4648 §4), throwing `InvalidBase64Error` on anything else. */
export function decodeBase64Strict(s: string): Buffer {
  const bytes = decodeOrUndefined(s);
  if (bytes === undefined) throw new InvalidBase64Error();
  return bytes;
}

function decodeOrUndefined(s: string): Buffer | undefined {
  if (s.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(s, 'base64');
  // Node's encoder writes the standard alphabet with padding and nothing else, so the text
  // comes back unchanged only when it is exactly that: a skipped character, a URL-safe one,
  // misplaced padding or a second spelling of the same bytes ("QQ==" and "QR==", which would
  // let one ciphertext or key travel under several strings) all come back different.
  return bytes.toString('base64') === s ? bytes : undefined;
}

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Base64URL without padding (RFC 4648 §5): PKCE challenges and key fingerprints. */
export function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}
