// How fast a listener on the shared PostgreSQL journal works through a backlog that another
// listener left (it died, or the database was away), against how fast it processes the same
// number of deliveries arriving live. Live: BENCH_BACKLOG deliveries POSTed over 32
// connections, timed from the first request until the last is recorded as processed.
// Catch-up: as many other deliveries written straight into the journal as unclaimed and
// unprocessed, then a listener started, timed from its start until the last is processed.
// Each delivery is a RETURN_REQUESTED encrypted for the listener's key, so both include the
// decryption. Needs `npm run build` and a PostgreSQL server (Debian's postgresql; run through
// tsx for test/postgres-server.ts: `node --import tsx bench/webhook-catchup.mjs`).
import { spawn, spawnSync } from 'node:child_process';
import { constants, createCipheriv, createHash, createHmac, generateKeyPairSync, publicEncrypt, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Pool } from 'undici';
import { positive } from './lib/common.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const svcBin = join(root, 'bin', 'svc.js');
const COUNT = positive('BENCH_BACKLOG', 3000);
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const work = mkdtempSync(join(tmpdir(), 'svc-bench-catchup-'));
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const keyFile = join(work, 'key.pem');
writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
const spki = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

function body(n) {
  const key = randomBytes(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const plain = Buffer.from(JSON.stringify({ serviceReceiptId: `sr-${n}`, receiptId: `R-${n}`, lineItems: [{ productId: 'sku-1', quantity: 1, reasonCode: 'DAMAGED' }], refundPreference: 'STORE_CREDIT' }));
  const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]).toString('base64');
  const wrapped = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, key).toString('base64');
  const item = { created_at: new Date().toISOString(), serviceReceiptId: `sr-${n}`, publicKey: spki, encryptedCreditNoteInitiationRequest: sealed, encryptedSymmetricKey: wrapped };
  return Buffer.from(JSON.stringify({ event: 'RETURN_REQUESTED', data: { creditNoteInitiationRequest: item }, n }));
}
const sign = (raw) => {
  const t = Math.floor(Date.now() / 1000);
  return `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.`).update(raw).digest('hex')}`;
};

function startListener(env) {
  const child = spawn(process.execPath, [svcBin, 'webhook', 'listen', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let seen = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (c) => {
      seen += c;
      const url = /listening on (\S+)/.exec(seen)?.[1];
      if (url) resolve({ url, stop: () => new Promise((done) => (child.once('exit', done), child.kill('SIGTERM'))) });
    });
    child.once('exit', (code) => reject(new Error(`the listener exited (${code}):\n${seen}`)));
  });
}

async function untilProcessed(db, total) {
  for (;;) {
    const { rows } = await db.query('SELECT count(*)::int AS n FROM svc_webhook_deliveries WHERE processed_at IS NOT NULL');
    if (rows[0].n >= total) return performance.now();
    await new Promise((r) => setTimeout(r, 50));
  }
}

const { postgresSkipReason, startPostgres } = await import('../test/postgres-server.ts');
const skip = postgresSkipReason();
if (skip) {
  console.log(`webhook-catchup: skipped (${skip})`);
  process.exit(0);
}
const postgres = await startPostgres();
const env = { PATH: process.env.PATH, HOME: work, NO_COLOR: '1', SVC_CONFIG_DIR: join(work, 'config'), SVC_STATE_DIR: join(work, 'state'), SVC_SECRET_STORE: 'file', SVC_WEBHOOK_SECRET: SECRET, SVC_PRIVATE_KEY_FILE: keyFile, SVC_DATABASE_URL: postgres.url };
const db = new pg.Client({ connectionString: postgres.url });
try {
  spawnSync(process.execPath, [svcBin, 'db', 'migrate'], { env, stdio: 'ignore' });
  await db.connect();

  // Live: POSTed to one listener, processed as they come.
  const live = Array.from({ length: COUNT }, (_, n) => body(n));
  const listener = await startListener(env);
  const { origin, pathname } = new URL(listener.url);
  const http = new Pool(origin, { connections: 32 });
  const liveStart = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < COUNT) {
        const raw = live[next++];
        const res = await http.request({ path: pathname, method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': sign(raw) }, body: raw });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`answered ${res.statusCode}`);
      }
    }),
  );
  const liveSeconds = ((await untilProcessed(db, COUNT)) - liveStart) / 1000;
  await http.close();
  await listener.stop();

  // Catch-up: a backlog nobody holds, as a listener that died (and whose lease ran out) leaves it.
  const left = Array.from({ length: COUNT }, (_, n) => body(COUNT + n));
  await db.query(
    `INSERT INTO svc_webhook_deliveries (id, received_at, event, headers, body)
     SELECT id, $2, 'RETURN_REQUESTED', h, b FROM unnest($1::text[], $3::text[], $4::bytea[]) AS t(id, h, b)`,
    [left.map((raw) => createHash('sha256').update(raw).digest('hex')), new Date().toISOString(), left.map((raw) => JSON.stringify({ 'content-type': 'application/json', 'x-service-signature': sign(raw) })), left],
  );
  const catchUpStart = performance.now();
  const catcher = await startListener(env);
  const catchUpSeconds = ((await untilProcessed(db, 2 * COUNT)) - catchUpStart) / 1000;
  await catcher.stop();

  const rate = (s) => Math.round(COUNT / s);
  console.log(`webhook catch-up on PostgreSQL, ${COUNT} deliveries: live ${liveSeconds.toFixed(2)} s (${rate(liveSeconds)}/s); backlog ${catchUpSeconds.toFixed(2)} s (${rate(catchUpSeconds)}/s, listener start included); backlog/live ${(liveSeconds / catchUpSeconds).toFixed(2)}x`);
} finally {
  await db.end().catch(() => undefined);
  await postgres.drop();
  rmSync(work, { recursive: true, force: true });
}
