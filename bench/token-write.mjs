// Writing one access token must cost the same with 10 or 10,000 cached (issue 25: a platform
// renews a token per Grant every 15 minutes). Times `put` of the token cache (its lock
// included, as a renewal pays it) on a profile's private token file holding 10 tokens and on
// one holding 10,000, alternating between them so that the machine's load weighs on both
// alike (median of each); and the same on the secret file (SVC_SECRET_STORE=file), where
// tokens were kept before.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { positive } from './lib/common.mjs';
import { createTokenCache, fileShelf, secretStoreShelf, tokenKey } from '../src/auth/token-cache.ts';
import { systemClock } from '../src/clock.ts';
import { scopedToProfile } from '../src/secrets/open.ts';
import { fileSecretStore } from '../src/secrets/file.ts';
import { openTokenFile } from '../src/store/token-file.ts';

const MANY = positive('BENCH_TOKENS', 10_000);
const SAMPLE = positive('BENCH_SAMPLE', 60);
const TARGET = 1.5;

const work = mkdtempSync(join(tmpdir(), 'svc-bench-tokens-'));
const quiet = { stdout: { write: () => true }, stderr: { write: () => true } };
const token = (i) => ({ access_token: `at-${i}-${'x'.repeat(43)}`, token_type: 'Bearer', expires_at: new Date(Date.now() + 900_000).toISOString(), scope: 'write_receipts' });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A token cache on a token file already holding `count` tokens. */
async function onTokenFile(name, count) {
  const path = join(work, name, 'local', 'tokens.db');
  const file = await openTokenFile(path);
  for (let i = 0; i < count; i++) file.write(`grant-${i}`, 'write_receipts', JSON.stringify(token(i)));
  file.close();
  return createTokenCache({ shelf: fileShelf(() => openTokenFile(path)), clock: systemClock, lockDir: join(work, name, 'locks'), namespace: 'local' });
}

/** A token cache on a secret file already holding `count` tokens (the layout before the token file). */
function onSecretFile(name, count) {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'secrets.json'), JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, i) => [`local/${tokenKey(`grant-${i}`)}`, JSON.stringify({ write_receipts: token(i) })]))), { mode: 0o600 });
  const secrets = scopedToProfile(fileSecretStore(dir, quiet), 'local');
  return createTokenCache({ shelf: secretStoreShelf(secrets), clock: systemClock, lockDir: join(dir, 'locks'), namespace: 'local' });
}

/** Median ms of one `put` on each cache, taken in turn. */
async function compare(few, many) {
  const times = [[], []];
  for (let i = 0; i < SAMPLE; i++) {
    const order = i % 2 === 0 ? [0, 1] : [1, 0];
    for (const which of order) {
      const started = performance.now();
      await [few, many][which].put(`grant-${i % 10}`, 'write_receipts', token(i));
      times[which].push(performance.now() - started);
    }
  }
  return times.map(median);
}

try {
  const [fileFew, fileMany] = await compare(await onTokenFile('few', 10), await onTokenFile('many', MANY));
  const [secretsFew, secretsMany] = await compare(onSecretFile('secrets-few', 10), onSecretFile('secrets-many', MANY));
  const ratio = fileMany / fileFew;
  console.log(`token write: one token written with 10 vs ${MANY} cached, median of ${SAMPLE} writes each, taken in turn, Node ${process.version}`);
  console.log(`  token file (tokens.db)   ${fileFew.toFixed(2)} ms with 10, ${fileMany.toFixed(2)} ms with ${MANY}: ${ratio.toFixed(2)}x`);
  console.log(`  secret file (before)     ${secretsFew.toFixed(2)} ms with 10, ${secretsMany.toFixed(2)} ms with ${MANY}: ${(secretsMany / secretsFew).toFixed(2)}x`);
  console.log(`token write: ${ratio.toFixed(2)}x with ${MANY} cached (target <= ${TARGET}x) ${ratio <= TARGET ? 'ok' : 'MISSED'}`);
  if (process.env.BENCH_STRICT === '1' && ratio > TARGET) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
