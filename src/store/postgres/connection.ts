// A database URL read as libpq reads it (psql and every libpq program agree on these), turned
// into what `pg` takes, so that pg's own readings — its sslmode aliases and their SECURITY
// WARNING, its deprecated ~/.pgpass lookup, its "client password must be a string" — never
// apply:
//
// - the password: the URL's (only an environment URL may hold one: a stored profile URL is
//   refused before it gets here), else PGPASSWORD, else the first matching line of
//   PGPASSFILE or ~/.pgpass (host:port:database:user:password, `*` and `\` escapes, ignored
//   unless the file is private, as libpq does). It is handed to pg as a function, asked only
//   when the server wants one; with none to give, the connection fails at once with
//   MissingPasswordError (exit 4) instead of pg's TypeError and a socket left open.
// - sslmode (URL, else PGSSLMODE; default prefer) with libpq's meaning: disable; allow (plain,
//   TLS if the server insists); prefer (TLS if the server offers it, else plain); require
//   (TLS, no verification, unless a root certificate is given: then verify-ca); verify-ca
//   (the chain, against sslrootcert); verify-full (the chain and the host name).
//   sslrootcert (URL, PGSSLROOTCERT, else ~/.postgresql/root.crt; `system`: the system's
//   CAs), sslcert and sslkey for a client certificate.
// - every session names its machine (application_name "svc HOST pid PID", what a colleague
//   waiting for a lock is shown) and limits how long it waits for a lock and how long it may
//   sit idle inside a transaction (lock_timeout, idle_in_transaction_session_timeout); the
//   URL's `options` or PGOPTIONS come after the defaults, so `-c lock_timeout=30s` there wins.
import { statSync } from 'node:fs';
import { readBoundedSync, REQUEST_BYTES } from '../../io/bounded-read.js';
import { hostname, homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { AuthError, UsageError } from '../../errors.js';

export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** Defaults of the two timeouts every session gets (PostgreSQL's interval syntax). */
export const DEFAULT_LOCK_TIMEOUT = '10s';
export const DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT = '60s';

export type Env = Readonly<Record<string, string | undefined>>;

/** The server asked for a password and none was given anywhere (exit 4). */
export class MissingPasswordError extends AuthError {}

export interface ConnectionSettings {
  host: string;
  port: number;
  user: string;
  database: string;
  sslMode: SslMode;
  /** TLS options when TLS is used; undefined for disable. */
  tls: ConnectionOptions | undefined;
  applicationName: string;
  /** The startup `options`: the timeouts, then the URL's or PGOPTIONS. */
  options: string;
  /** Asked by pg only when the server wants a password. */
  password(): Promise<string>;
}

/** Reads the URL (already checked as postgres:// by checkDatabaseUrl) and the environment as libpq would. */
export function connectionSettings(value: string, env: Env): ConnectionSettings {
  const url = new URL(value);
  const param = (name: string) => {
    const v = url.searchParams.get(name);
    return v === null || v === '' ? undefined : v;
  };
  const user = decodeURIComponent(url.username) || env.PGUSER || userInfo().username;
  const host = param('host') ?? (decodeURIComponent(url.hostname).replace(/^\[(.*)\]$/, '$1') || env.PGHOST || 'localhost');
  const port = Number(param('port') ?? (url.port || env.PGPORT || 5432));
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || param('dbname') || env.PGDATABASE || user;
  const home = env.HOME || homedir();

  const mode = param('sslmode') ?? env.PGSSLMODE ?? 'prefer';
  if (!(SSL_MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`sslmode=${mode} is not one of ${SSL_MODES.join(', ')}`, { hint: 'as for psql: https://www.postgresql.org/docs/current/libpq-ssl.html' });
  }
  const sslMode = mode as SslMode;
  const rootCert = param('sslrootcert') ?? env.PGSSLROOTCERT;
  const tls = sslMode === 'disable' ? undefined : tlsOptions(sslMode, host, rootCert, { cert: param('sslcert') ?? env.PGSSLCERT, key: param('sslkey') ?? env.PGSSLKEY }, home);

  const fromUrl = url.password === '' ? (param('password') ?? undefined) : decodeURIComponent(url.password);
  const given = fromUrl ?? (env.PGPASSWORD || undefined);
  const passFile = env.PGPASSFILE || join(home, '.pgpass');
  return {
    host,
    port,
    user,
    database,
    sslMode,
    tls,
    applicationName: applicationName(param('application_name') ?? env.PGAPPNAME),
    options: [`-c lock_timeout=${DEFAULT_LOCK_TIMEOUT}`, `-c idle_in_transaction_session_timeout=${DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT}`, param('options') ?? env.PGOPTIONS]
      .filter(Boolean)
      .join(' '),
    async password() {
      if (given !== undefined) return given;
      const found = passwordFromFile(passFile, { host, port, database, user });
      if (typeof found === 'string') return found;
      throw new MissingPasswordError(`the database asks for a password for user "${user}", and none was given${found.why ? ` (${found.why})` : ''}`, {
        hint: `set PGPASSWORD, or add the line ${host}:${port}:${database}:${user}:PASSWORD to ${env.PGPASSFILE ? passFile : '~/.pgpass'} (chmod 600), as for psql`,
      });
    },
  };
}

/** "svc HOST pid PID" (or the URL's application_name before it), at most PostgreSQL's 63 bytes. */
function applicationName(given: string | undefined): string {
  const tail = ` pid ${process.pid}`;
  const head = `${given ?? 'svc'} ${hostname()}`;
  return Buffer.from(head).subarray(0, 63 - tail.length).toString().replace(/\uFFFD$/, '') + tail;
}

function tlsOptions(mode: Exclude<SslMode, 'disable'>, host: string, rootCert: string | undefined, client: { cert?: string | undefined; key?: string | undefined }, home: string): ConnectionOptions {
  const read = (path: string, what: string) => {
    try {
      return readBoundedSync(path, `the ${what} ${path}`, { bytes: REQUEST_BYTES, why: 'a PEM certificate or key' });
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`cannot read the ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { hint: 'check the path given in the database URL (or the PGSSL… variable)' });
    }
  };
  const clientCert = {
    ...(client.cert ? { cert: read(client.cert, 'client certificate (sslcert)') } : {}),
    ...(client.key ? { key: read(client.key, 'client key (sslkey)') } : {}),
  };
  const defaultRoot = join(home, '.postgresql', 'root.crt');
  const rootPath = rootCert ?? (exists(defaultRoot) ? defaultRoot : undefined);
  const verifies = mode === 'verify-ca' || mode === 'verify-full' || (mode === 'require' && rootPath !== undefined);
  if (!verifies) return { rejectUnauthorized: false, ...clientCert };
  if (rootPath === undefined) {
    throw new UsageError(`sslmode=${mode} verifies the server's certificate, and no root certificate was given`, {
      hint: 'add sslrootcert=/path/to/ca.pem to the database URL (or sslrootcert=system for the system\'s CAs), or put it in ~/.postgresql/root.crt',
    });
  }
  const ca = rootPath === 'system' ? {} : { ca: read(rootPath, 'root certificate (sslrootcert)') };
  // verify-ca (and require with a root certificate): the chain only, any host name.
  const identity = mode === 'verify-full' ? { servername: isIp(host) ? undefined : host } : { checkServerIdentity: () => undefined };
  return { rejectUnauthorized: true, ...ca, ...identity, ...clientCert };
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}

function exists(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The password of the first line of a libpq password file that matches (libpq's rules: five
 * fields split on unescaped `:`, `*` matches anything, `\` escapes); a file that others can
 * read is not used, and the reason is returned so that the error can say it.
 */
export function passwordFromFile(path: string, want: { host: string; port: number; database: string; user: string }): string | { why?: string } {
  let text: string;
  try {
    const info = statSync(path);
    if (!info.isFile()) return { why: `${path} is not a plain file` };
    if ((info.mode & 0o077) !== 0) return { why: `${path} was not used: others can read it; chmod 600 it` };
    text = readBoundedSync(path, `the password file ${path}`, { bytes: REQUEST_BYTES, why: 'a libpq password file' }).toString('utf8');
  } catch (error) {
    return error instanceof UsageError ? { why: `${error.message}: not used` } : {};
  }
  // A socket directory matches "localhost", as in libpq.
  const host = want.host.startsWith('/') ? 'localhost' : want.host;
  const wanted = [host, String(want.port), want.database, want.user];
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const fields = splitPassLine(line);
    if (fields.length < 5) continue;
    if (wanted.every((value, i) => fields[i] === '*' || fields[i] === value)) return fields.slice(4).join(':');
  }
  return {};
}

function splitPassLine(line: string): string[] {
  const fields: string[] = [];
  let current = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === '\\' && i + 1 < line.length) current += line[++i];
    else if (c === ':' && fields.length < 4) {
      fields.push(current);
      current = '';
    } else current += c;
  }
  fields.push(current);
  return fields;
}
