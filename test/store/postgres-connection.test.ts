// Connecting to the team's database as libpq (psql) would, against real servers: one
// without TLS, and one that insists on TLS with a self-signed certificate made for the test
// (for 127.0.0.1 only). sslmode keeps libpq's meaning (require encrypts without verifying,
// prefer and allow fall back), sslrootcert verifies, the driver warns about nothing, and the
// password comes from PGPASSWORD or ~/.pgpass (a private one) as libpq reads them.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionSettings, passwordFromFile } from '../../src/store/postgres/connection.js';
import { databaseError, openPool } from '../../src/store/postgres/pool.js';
import { postgresSkipReason, startPostgres, type PgServer } from '../postgres-server.js';

const skip = postgresSkipReason();
let plain: PgServer;
let secure: PgServer;
let home: string;
const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'svc-pg-home-'));
  if (skip) return;
  [plain, secure] = await Promise.all([startPostgres(), startPostgres({ tls: true })]);
  process.on('warning', onWarning);
}, 120_000);
afterAll(async () => {
  process.off('warning', onWarning);
  await Promise.all([plain?.drop(), secure?.drop()]);
  await rm(home, { recursive: true, force: true });
});

/** The URL without its password, with query parameters; the password in PGPASSWORD. */
function bare(server: PgServer, query = '', host = '127.0.0.1'): { url: string; env: Record<string, string> } {
  return { url: `postgres://svc@${host}:${server.port}/svc${query}`, env: { HOME: home, PGPASSWORD: server.password } };
}

/** Whether the session runs over TLS, as the server sees it; or the svc error it fails with. */
async function tlsOf(url: string, env: Record<string, string>): Promise<boolean | string> {
  let pool;
  try {
    pool = await openPool(url, { env });
    const { rows } = await pool.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
    return (rows[0] as { ssl: boolean }).ssl;
  } catch (error) {
    return databaseError(url, error).message;
  } finally {
    await pool?.end();
  }
}

describe('libpq password files', () => {
  it('the first matching line, with * and \\ escapes; a file others can read is not used', async () => {
    const file = join(home, 'pgpass');
    await writeFile(file, '# comment\nother:5432:*:svc:no\n127.0.0.1:5433:*:svc:a\\:b\\\\c\n*:*:*:*:fallback\n');
    await chmod(file, 0o600);
    expect(passwordFromFile(file, { host: '127.0.0.1', port: 5433, database: 'svc', user: 'svc' })).toBe('a:b\\c');
    expect(passwordFromFile(file, { host: 'db', port: 5432, database: 'x', user: 'y' })).toBe('fallback');
    await chmod(file, 0o644);
    expect(passwordFromFile(file, { host: 'db', port: 5432, database: 'x', user: 'y' })).toEqual({ why: expect.stringContaining('others can read it') });
  });

  it('sslmode outside libpq\'s six is refused; verify-ca with no root certificate is refused, naming sslrootcert', () => {
    expect(() => connectionSettings('postgres://svc@db/svc?sslmode=no-verify', { HOME: home })).toThrow(/sslmode=no-verify is not one of disable, allow, prefer, require, verify-ca, verify-full/);
    expect(() => connectionSettings('postgres://svc@db/svc?sslmode=verify-ca', { HOME: home })).toThrow(/no root certificate was given/);
  });
});

describe.skipIf(skip !== undefined)(`sslmode as libpq has it, against real servers${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('disable, allow and prefer (the default) against a server without TLS: plain; require: refused, saying why', async () => {
    for (const query of ['?sslmode=disable', '?sslmode=allow', '?sslmode=prefer', '']) {
      const { url, env } = bare(plain, query);
      expect(await tlsOf(url, env), query).toBe(false);
    }
    const { url, env } = bare(plain, '?sslmode=require');
    expect(await tlsOf(url, env)).toMatch(/does not accept TLS connections/);
  });

  it('allow, prefer and require against a server that insists on TLS with a self-signed certificate: TLS, unverified', async () => {
    for (const query of ['?sslmode=allow', '?sslmode=prefer', '', '?sslmode=require']) {
      const { url, env } = bare(secure, query);
      expect(await tlsOf(url, env), query).toBe(true);
    }
  });

  it('verify-ca and verify-full check the certificate against sslrootcert; verify-full also the host name', async () => {
    const ca = `&sslrootcert=${encodeURIComponent(secure.certFile as string)}`;
    const ok = [bare(secure, `?sslmode=verify-ca${ca}`), bare(secure, `?sslmode=verify-ca${ca}`, 'localhost'), bare(secure, `?sslmode=verify-full${ca}`), bare(secure, `?sslmode=require${ca}`)];
    for (const { url, env } of ok) expect(await tlsOf(url, env), url).toBe(true);
    // The certificate names 127.0.0.1, not localhost.
    const wrongHost = bare(secure, `?sslmode=verify-full${ca}`, 'localhost');
    expect(await tlsOf(wrongHost.url, wrongHost.env)).toMatch(/TLS certificate is not accepted \(ERR_TLS_CERT_ALTNAME_INVALID/);
    // Another CA: with a root certificate, require verifies as verify-ca does.
    const otherCa = `&sslrootcert=${encodeURIComponent(plain.certFile ?? (await otherCertificate()))}`;
    for (const mode of ['verify-ca', 'require']) {
      const { url, env } = bare(secure, `?sslmode=${mode}${otherCa}`);
      expect(await tlsOf(url, env), mode).toMatch(/TLS certificate is not accepted/);
    }
  });

  it('the password from ~/.pgpass (private), with no driver warning; none anywhere: exit 4 naming PGPASSWORD and ~/.pgpass', async () => {
    const pgpass = join(home, '.pgpass');
    await writeFile(pgpass, `127.0.0.1:${secure.port}:svc:svc:${secure.password}\n`);
    await chmod(pgpass, 0o600);
    const url = `postgres://svc@127.0.0.1:${secure.port}/svc?sslmode=require`;
    expect(await tlsOf(url, { HOME: home })).toBe(true);
    await rm(pgpass);
    const missing = await openPool(url, { env: { HOME: home } });
    const error = await missing.query('SELECT 1').catch((e: unknown) => databaseError(url, e));
    await missing.end();
    expect(error).toMatchObject({ exitCode: 4 });
    expect((error as Error).message).toContain('asks for a password');
    expect((error as { hint?: string }).hint).toMatch(/PGPASSWORD.*~\/\.pgpass/);
    expect(warnings).toEqual([]);
  });
});

/** A self-signed certificate nobody's server uses. */
async function otherCertificate(): Promise<string> {
  const { execFileSync } = await import('node:child_process');
  const dir = await mkdtemp(join(tmpdir(), 'svc-other-ca-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=other', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem')], { stdio: 'pipe' });
  return join(dir, 'c.pem');
}
