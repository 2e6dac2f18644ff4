// A record read back from either engine, checked against its schema: one that another
// version of svc (or a person) wrote differently is named, never half-read. SQLite keeps it
// as JSON text, PostgreSQL as jsonb (the driver hands back the value).
import { StoreError } from './errors.js';

interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}

export function decodeRecord<T>(schema: Schema<T>, stored: unknown, what: string): T {
  let parsed;
  try {
    parsed = schema.safeParse(typeof stored === 'string' ? JSON.parse(stored) : stored);
  } catch {
    parsed = undefined;
  }
  if (parsed?.success) return parsed.data;
  const issue = parsed?.error.issues[0];
  throw new StoreError(`the ledger's record of ${what} is not readable${issue ? ` (${issue.path.join('.')}: ${issue.message})` : ''}`, {
    hint: 'it was written by another version of svc or changed by hand; restore the ledger from a backup',
  });
}
