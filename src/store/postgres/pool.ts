// The connections to the team's database, and what their failures say. pg reports a
// connection that dies (PostgreSQL stopped, a backend terminated, the network gone) as an
// 'error' event on the client, checked out or not; an event nobody listens to ends Node
// ("Unhandled 'error' event … Connection terminated unexpectedly"). So every client carries
// a listener from the moment it exists: the query in flight rejects with the error, the
// next one with "not queryable", and each becomes svc's error (databaseError). A client that
// failed to connect has its socket closed, so that nothing keeps the process alive after it.
import type { Client, Pool, PoolClient } from 'pg';
import { SvcError, AuthError, UnavailableError } from '../../errors.js';
import { redactDatabaseUrl } from '../database-url.js';
import { PrivilegeError, StoreError } from '../errors.js';
import { connectionSettings, type ConnectionSettings, type Env } from './connection.js';

export interface PoolOptions {
  max?: number;
  /** The environment libpq would read (PGPASSWORD, PGSSLMODE, HOME for ~/.pgpass, …): the factory's. */
  env: Env;
}

/** Opens a pool on the URL (pg loaded here, only when a database URL is set); nothing connects yet. */
export async function openPool(url: string, opts: PoolOptions): Promise<Pool> {
  const { default: pg } = await import('pg');
  const settings = connectionSettings(url, opts.env);
  // allow and prefer try one way first and the other if the server refuses it; the first
  // connection that gets through decides for the rest of the pool.
  const tls = new TlsChoice(settings);

  class SvcClient extends pg.Client {
    constructor() {
      super({
        host: settings.host,
        port: settings.port,
        user: settings.user,
        database: settings.database,
        password: settings.password,
        ssl: tls.current() ?? false,
        application_name: settings.applicationName,
        options: settings.options,
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
      });
      this.on('error', () => undefined);
    }
    // pg-pool connects its clients with a callback; the promise form is left as pg has it.
    override connect(): Promise<Client>;
    override connect(callback: (err: Error) => void): void;
    override connect(callback?: (err: Error) => void): Promise<Client> | void {
      if (callback === undefined) return super.connect();
      super.connect((error: Error) => {
        // Failed in the handshake (a password missing, TLS refused): nothing else closes the socket.
        if (error) (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
        callback(error);
      });
    }
  }

  class SvcPool extends pg.Pool {
    override connect(): Promise<PoolClient>;
    override connect(callback: (err: Error | undefined, client: PoolClient | undefined, done: (release?: unknown) => void) => void): void;
    override connect(callback?: (err: Error | undefined, client: PoolClient | undefined, done: (release?: unknown) => void) => void): Promise<PoolClient> | void {
      const connected = this.connectOnce().catch((error: unknown) => {
        if (!tls.fallBack(error)) throw error;
        return this.connectOnce();
      });
      if (callback === undefined) return connected;
      connected.then(
        (client) => callback(undefined, client, (release) => client.release(release as Error | boolean | undefined)),
        (error: Error) => callback(error, undefined, () => undefined),
      );
    }
    private connectOnce(): Promise<PoolClient> {
      return new Promise((resolve, reject) => {
        super.connect((error, client) => (error || !client ? reject(error) : resolve(client)));
      }).then((client) => {
        tls.decided();
        return client as PoolClient;
      });
    }
  }

  const pool = new SvcPool({ Client: SvcClient, max: opts.max ?? 4, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 10_000 });
  // An idle client whose server went away must not take the process down.
  pool.on('error', () => undefined);
  return pool;
}

/** sslmode allow and prefer: the first choice, and the other one if the server refuses it. */
class TlsChoice {
  private settled: boolean;
  private useTls: boolean;
  constructor(private readonly settings: ConnectionSettings) {
    this.settled = settings.sslMode !== 'allow' && settings.sslMode !== 'prefer';
    this.useTls = settings.sslMode !== 'disable' && settings.sslMode !== 'allow';
  }
  current() {
    return this.useTls ? this.settings.tls : undefined;
  }
  decided() {
    this.settled = true;
  }
  /** True when the other choice is worth a try. */
  fallBack(error: unknown): boolean {
    if (this.settled) return false;
    const message = error instanceof Error ? error.message : '';
    const code = (error as { code?: unknown } | null)?.code;
    // prefer: a server without TLS answers the SSLRequest with 'N'; allow: one that insists refuses plain text.
    const refused = this.useTls ? /does not support SSL/i.test(message) : code === '28000' && /no encryption|SSL off|hostssl/i.test(message);
    if (!refused) return false;
    this.useTls = !this.useTls;
    this.settled = true;
    return true;
  }
}

/** Who holds a lock that a session waits for, as pg_stat_activity tells it. */
export interface LockHolder {
  applicationName: string;
  pid: number;
  clientAddress: string | null;
  transactionStart: string | null;
  state: string | null;
}

export function describeLockHolder(holder: LockHolder): string {
  const who = holder.applicationName === '' ? `backend pid ${holder.pid}` : holder.applicationName;
  const where = holder.clientAddress ? ` from ${holder.clientAddress}` : '';
  const since = holder.transactionStart ? `, its transaction open since ${holder.transactionStart}` : '';
  const state = holder.state === 'idle in transaction' ? ', doing nothing inside it (a stopped or stuck process?)' : '';
  return `${who}${where}${since}${state}`;
}

/** The sessions that block backend `pid`, oldest transaction first; [] when none or unreadable. */
export async function lockHolders(pool: Pool, pid: number): Promise<LockHolder[]> {
  try {
    const { rows } = await pool.query(
      `SELECT pid, application_name, client_addr::text AS client_addr, xact_start, state
       FROM pg_stat_activity WHERE pid = ANY(pg_blocking_pids($1)) ORDER BY xact_start`,
      [pid],
    );
    return (rows as { pid: number; application_name: string; client_addr: string | null; xact_start: Date | null; state: string | null }[]).map((r) => ({
      pid: r.pid,
      applicationName: r.application_name,
      clientAddress: r.client_addr,
      transactionStart: r.xact_start && r.xact_start.toISOString(),
      state: r.state,
    }));
  } catch {
    return [];
  }
}

/** An error of pg or of the connection under it (a SQLSTATE or a socket's code, or pg's own words), not one of svc's. */
export function isDatabaseFailure(error: unknown): error is Error {
  if (!(error instanceof Error) || error instanceof SvcError) return false;
  return typeof (error as { code?: unknown }).code === 'string' || /connection|terminat|not queryable|timeout/i.test(error.message);
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', '53300', '25P03']);
const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL/;

/**
 * What a database failure says: the redacted URL and the reason. The database gone or going
 * (refused, reset, terminated, shut down, a lock not granted in time) is exit 8, "run it
 * again"; a login refused is exit 4; anything else exit 1.
 */
export function databaseError(url: string, error: unknown, holder?: LockHolder): Error {
  if (error instanceof SvcError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const where = redactDatabaseUrl(url);
  if (code === '55P03') {
    return new UnavailableError(`gave up waiting for a lock in the database ${where} (lock_timeout)${holder ? `: it is held by ${describeLockHolder(holder)}` : ''}`, {
      hint: holder?.state === 'idle in transaction'
        ? 'run it again once that process has finished, or once the database ends its session (idle_in_transaction_session_timeout); nothing was changed here'
        : 'run it again in a moment; nothing was changed here',
    });
  }
  if (code === '28P01' || code === '28000') {
    return new AuthError(`the database ${where} refused the login: ${message}`, { hint: 'check the user and its password (PGPASSWORD, ~/.pgpass) and the server\'s pg_hba.conf' });
  }
  if (code === '42501') return privilegeError(url, where, message);
  if (typeof code === 'string' && TLS_CODES.test(code)) {
    return new StoreError(`the database ${where}: its TLS certificate is not accepted (${code}: ${message})`, {
      hint: 'give the CA that signed it with sslrootcert=/path/ca.pem, or choose another sslmode (require encrypts without verifying)',
    });
  }
  if (/does not support SSL/i.test(message)) {
    return new StoreError(`the database ${where} does not accept TLS connections, and its URL asks for TLS (sslmode)`, {
      hint: 'use sslmode=prefer (TLS when offered) or sslmode=disable, or turn ssl on in the server',
    });
  }
  if ((typeof code === 'string' && (UNREACHABLE_CODES.has(code) || /^08|^57P0/.test(code))) || /timeout|terminat|not queryable|ended unexpectedly/i.test(message)) {
    return new UnavailableError(`the database ${where} is unreachable (${typeof code === 'string' && !/^\d/.test(code) ? code : message})`, {
      hint: 'check that PostgreSQL runs and the URL is right, then run it again',
    });
  }
  return new StoreError(`the database ${where} refused: ${message}`, { hint: 'check the URL, the user and its password (PGPASSWORD, ~/.pgpass)' });
}

/**
 * insufficient_privilege (42501): the login worked, the role may not do this. The hint names
 * the privilege and the GRANT the database's owner runs; creating the tables is one owner's
 * `svc db migrate`, after which an application role needs no CREATE.
 */
function privilegeError(url: string, where: string, message: string): PrivilegeError {
  const role = decodeURIComponent(new URL(url).username) || 'the role svc logs in as';
  const on = /permission denied for (schema|table|sequence|database) (\S+)/i.exec(message);
  const kind = on?.[1]?.toLowerCase();
  const name = on?.[2] ?? 'public';
  const lacks =
    kind === 'schema'
      ? `the role ${role} lacks the CREATE privilege on schema ${name}, which creating svc's tables needs`
      : kind === 'table' || kind === 'sequence'
        ? `the role ${role} lacks a privilege on ${kind} ${name}`
        : `the role ${role} lacks a privilege this needs`;
  const hint =
    kind === 'schema'
      ? `have the database's owner run \`GRANT CREATE ON SCHEMA ${name} TO ${role}\`, or run \`svc db migrate\` once as the owner (afterwards ${role} needs no CREATE)`
      : kind === 'table' || kind === 'sequence'
        ? `have the database's owner run \`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}\` and \`GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}\``
        : `ask the database's owner to grant ${role} the privilege, or to run \`svc db migrate\``;
  return new PrivilegeError(`the database ${where} refused: ${message} (${lacks})`, { hint });
}
