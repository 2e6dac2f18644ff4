// What every `svc db` verb starts from: the database URL in force, or the usage error that
// says how to give one.
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { databaseUrlOf } from '../../config/profile-dir.js';

export async function requireDatabaseUrl(f: Factory): Promise<string> {
  const url = await databaseUrlOf(f);
  if (url !== undefined) return url;
  throw new UsageError('svc db works on a shared PostgreSQL database, and none is set', {
    hint: 'set SVC_DATABASE_URL=postgres://USER@HOST:PORT/DATABASE, or `svc config set database-url …` (password in PGPASSWORD or ~/.pgpass)',
  });
}
