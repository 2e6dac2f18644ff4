// The company a webhook delivery is of, as its envelope names it outside the ciphertext
// (`creditNoteInitiationRequest.companyId`, `encryptedCreditNote.companyId`): for the log line
// of its acknowledgement and the `Svc-Company-Id` header of its forwards.

/** The company the parsed envelope names, if any. */
export function companyIdIn(envelope: unknown): string | undefined {
  const data = (envelope as { data?: unknown } | null)?.data;
  if (typeof data !== 'object' || data === null) return undefined;
  const { creditNoteInitiationRequest, encryptedCreditNote } = data as Record<string, { companyId?: unknown } | null | undefined>;
  const id = creditNoteInitiationRequest?.companyId ?? encryptedCreditNote?.companyId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The company a delivery's raw body names, if any, as printable ASCII (it goes into a header and a log field). */
export function companyIdOfBody(raw: Buffer): string | undefined {
  let envelope: unknown;
  try {
    envelope = JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
  const id = companyIdIn(envelope);
  return id !== undefined && /^[\x21-\x7e]{1,200}$/.test(id) ? id : undefined;
}
