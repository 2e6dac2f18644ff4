// Base64 per CONTRACT §1. Node's decoder silently skips characters outside the alphabet and
// tolerates missing padding, so every input is validated before it is decoded.

/** Thrown by `decodeBase64Strict`; crypto callers turn it into `DecryptError`. */
export class InvalidBase64Error extends TypeError {
  constructor() {
    super('not valid Base64');
    this.name = 'InvalidBase64Error';
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

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
  if (s.length % 4 !== 0 || !BASE64.test(s)) return undefined;
  const bytes = Buffer.from(s, 'base64');
  // Two spellings of the same bytes ("QQ==" and "QR==") would let one ciphertext or key
  // travel under several strings; accept only the one an encoder produces.
  return bytes.toString('base64') === s ? bytes : undefined;
}

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Base64URL without padding (RFC 4648 §5): PKCE challenges and key fingerprints. */
export function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}
