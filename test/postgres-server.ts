// A real PostgreSQL server for the tests (Debian's `postgresql` package): `initdb` into a temp
// dir as a non-root user (`postgres` when the tests run as root), `pg_ctl start` on a free
// loopback port with its socket in that dir, password authentication over TCP, dropped at
// the end. No mock of the database anywhere. Outside CI a machine without the server skips
// with a message naming the package; under CI=true it is an error.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { freeLoopbackPort } from '../src/net-port.js';
import { isCI } from '../src/io/streams.js';

export interface PgServer {
  /** postgres://svc:PASSWORD@127.0.0.1:PORT/svc */
  url: string;
  password: string;
  port: number;
  /** A fresh, empty database on the server; its URL. */
  database(name: string): Promise<string>;
  /** The server's own psql on a database (over its socket), as a person would run it: its output. */
  psql(db: string, command: string): string;
  /** pg_ctl stop -m fast: the server goes away as it would for a restart. */
  stop(): void;
  /** pg_ctl stop -m immediate: every backend dies at once, mid-query, as in a crash. */
  kill(): void;
  start(): void;
  /** Stops the server and removes its files. */
  drop(): Promise<void>;
  /** With `tls`: the server's self-signed certificate (its own CA), for sslrootcert. */
  certFile?: string;
}

export interface PgServerOptions {
  /**
   * TLS on, with a self-signed certificate made here for IP 127.0.0.1 only (not "localhost"),
   * and TCP connections without TLS refused (pg_hba hostssl), as a server that insists.
   */
  tls?: boolean;
}

function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** Undefined when a server can be started, else why not (outside CI only; under CI it throws). */
export function postgresSkipReason(): string | undefined {
  if (binDir() !== undefined) return undefined;
  const reason = 'missing PostgreSQL server binaries (apt-get install postgresql)';
  if (isCI(process.env)) throw new Error(`CI must run this test: ${reason}`);
  return reason;
}

export async function startPostgres(opts: PgServerOptions = {}): Promise<PgServer> {
  const bin = binDir();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)');
  const dir = await mkdtemp(join(tmpdir(), 'svc-pg-'));
  const data = join(dir, 'data');
  const password = randomBytes(12).toString('hex');
  const asRoot = process.getuid?.() === 0;
  const uid = asRoot ? Number(execFileSync('id', ['-u', 'postgres']).toString().trim()) : undefined;
  const gid = asRoot ? Number(execFileSync('id', ['-g', 'postgres']).toString().trim()) : undefined;
  await writeFile(join(dir, 'pwfile'), `${password}\n`);
  if (uid !== undefined && gid !== undefined) {
    await chown(dir, uid, gid);
    await chown(join(dir, 'pwfile'), uid, gid);
  }
  await chmod(dir, 0o700);
  const run = (tool: string, args: string[]) =>
    asRoot ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { stdio: 'pipe' }) : execFileSync(join(bin, tool), args, { stdio: 'pipe' });
  run('initdb', ['-D', data, '-U', 'svc', '--pwfile', join(dir, 'pwfile'), '--auth-local=trust', '--auth-host=scram-sha-256', '--encoding=UTF8', '--no-sync']);
  const port = await freeLoopbackPort();
  let options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  const certFile = join(dir, 'server.crt');
  if (opts.tls) {
    const keyFile = join(data, 'server.key');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=svc-test-postgres', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile], { stdio: 'pipe' });
    await chmod(keyFile, 0o600);
    if (uid !== undefined && gid !== undefined) await chown(keyFile, uid, gid);
    await writeFile(join(data, 'pg_hba.conf'), 'local all all trust\nhostssl all all 127.0.0.1/32 scram-sha-256\n');
    if (uid !== undefined && gid !== undefined) await chown(join(data, 'pg_hba.conf'), uid, gid);
    options += ` -c ssl=on -c ssl_cert_file=${certFile} -c ssl_key_file=${keyFile}`;
  }
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  start();
  const url = (db: string) => `postgres://svc:${password}@127.0.0.1:${port}/${db}`;
  const psql = (db: string, sql: string) => run('psql', ['-h', dir, '-p', String(port), '-U', 'svc', '-d', db, '-v', 'ON_ERROR_STOP=1', '-c', sql]);
  psql('postgres', 'CREATE DATABASE svc');
  return {
    url: url('svc'),
    password,
    port,
    async database(name) {
      // A test run again (CI retries a failed one once) starts from an empty database.
      psql('postgres', `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      psql('postgres', `CREATE DATABASE "${name}"`);
      return url(name);
    },
    psql: (db, command) => psql(db, command).toString(),
    stop: () => void run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    kill: () => void run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    start: () => void start(),
    ...(opts.tls ? { certFile } : {}),
    async drop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already stopped.
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
