// `POST /receipt/email` with a 1 MiB body (a note of a million characters without a break,
// the input that once froze the sandbox for minutes) against the same email of an ordinary
// receipt, in the same run: the median time to answer 202 of each and their ratio, and the
// slowest `/sandbox/health` answer while the large ones render (target: the large email
// under 1 s, health under 50 ms). In process, through tsx, on the current sources.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../src/sandbox/server.ts';
import { positive } from './lib/common.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = positive('BENCH_PDF_RUNS', 7);
const fixture = JSON.parse(readFileSync(`${root}fixtures/sandbox.json`, 'utf8'));
const apiKey = fixture.companies[0].apiKey;
const request = JSON.parse(readFileSync(`${root}fixtures/receipts/groceries.json`, 'utf8'));

const sandbox = await startSandbox({ rateLimit: { capacity: 100_000, refillPerSecond: 100_000 } });
let key = 0;
const call = async (method, path, body) => {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json', 'Idempotency-Key': `bench-${++key}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
};

const templateWith = (note) => call('POST', '/receipt/template', { ...request, note });
const small = await templateWith('Thank you for shopping');
const large = await templateWith('n'.repeat(1_000_000));
const bodyBytes = Buffer.byteLength(JSON.stringify({ to: 'alice@example.com', template: large }));

const timeEmail = async (template) => {
  const started = performance.now();
  await call('POST', '/receipt/email', { to: 'alice@example.com', template });
  return performance.now() - started;
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// Warm up both paths (pdfkit and the font load on first use).
await timeEmail(small);
await timeEmail(large);
const smallTimes = [];
const largeTimes = [];
let worstHealth = 0;
for (let i = 0; i < runs; i++) {
  smallTimes.push(await timeEmail(small));
  let rendering = true;
  const polling = (async () => {
    while (rendering) {
      const started = performance.now();
      await fetch(`${sandbox.url}/sandbox/health`).then((r) => r.text());
      worstHealth = Math.max(worstHealth, performance.now() - started);
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  largeTimes.push(await timeEmail(large));
  rendering = false;
  await polling;
}
await sandbox.close();

const s = median(smallTimes);
const l = median(largeTimes);
console.log(`pdf-email: ${(bodyBytes / 1024 / 1024).toFixed(2)} MiB body answered in ${l.toFixed(0)} ms median (target < 1000 ms), ${(l / s).toFixed(2)}x an ordinary receipt's ${s.toFixed(0)} ms in this run; slowest /sandbox/health meanwhile ${worstHealth.toFixed(1)} ms (target < 50 ms); ${runs} runs`);
if (process.env.BENCH_STRICT === '1' && (l >= 1000 || worstHealth >= 50)) process.exitCode = 1;
