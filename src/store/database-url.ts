// SVC_DATABASE_URL (or the profile's `database-url`; docs/interface-decisions.md#settings-precedence precedence: env > profile): the
// shared PostgreSQL database of a team. Only postgres:// and postgresql:// URLs; the
// password never reaches a message, `config list` or --debug: everything shows the URL with
// it replaced.
import { UsageError } from '../errors.js';

export function checkDatabaseUrl(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${name} is not a URL`, { hint: 'give postgres://USER@HOST:PORT/DATABASE (the password in PGPASSWORD or ~/.pgpass)' });
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new UsageError(`${name} must be a postgres:// or postgresql:// URL, not ${url.protocol}//…`, {
      hint: 'only PostgreSQL is supported as a shared database; unset it for the embedded store',
    });
  }
  return value;
}

/** The URL as it may be shown: the password replaced. */
export function redactDatabaseUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password !== '') url.password = '***';
    for (const key of ['password', 'sslpassword']) if (url.searchParams.has(key)) url.searchParams.set(key, '***');
    return url.toString();
  } catch {
    return '(not a URL)';
  }
}

/**
 * A stored URL (config.json is not a secret store) may not carry a password, whether as
 * `user:pw@` or `?password=`; one from the environment may, as libpq allows.
 */
export function refuseStoredPassword(value: string, name: string): string {
  const url = new URL(value);
  if (url.password !== '' || url.searchParams.has('password')) {
    throw new UsageError(`${name} must not hold a password: config.json is not a secret store`, {
      hint: 'store the URL without it and give the password in PGPASSWORD or ~/.pgpass (as psql does)',
    });
  }
  return value;
}
