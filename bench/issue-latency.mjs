// Wall time of `svc receipt send` and `svc credit-note issue` (each through the ledger: an
// intent recorded and fsynced before the submission, the record and the closed intent after)
// against `svc sandbox outbox`, a command making one request and touching no ledger, in the
// same run. With BENCH_BASELINE_SVC=/path/to/an/older/bin/svc.js the older build's send and
// issue run interleaved too, and the figure is the ratio to them (issue 10: within 10 %).
// Companies authenticate with the fixture's API key, so no login is needed. Where a
// PostgreSQL server can be started (run through tsx, as `npm run bench` does), the same
// commands also run on a shared PostgreSQL ledger (SVC_DATABASE_URL), reported as a ratio to
// the embedded one.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnTimed, startBenchSandbox } from './lib/common.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const svc = join(root, 'bin', 'svc.js');
const baseline = process.env.BENCH_BASELINE_SVC;
const runs = Number(process.env.BENCH_RUNS ?? 15);
if (!Number.isInteger(runs) || runs < 5) {
  console.error(`BENCH_RUNS must be a whole number of at least 5 (got ${process.env.BENCH_RUNS})`);
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'svc-bench-issue-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const seed = JSON.parse(readFileSync(join(root, 'fixtures', 'sandbox.json'), 'utf8'));
const company = seed.companies[0];
const keyFile = join(work, 'company.pem');
writeFileSync(keyFile, company.encryptionKey.privateKeyPem, { mode: 0o600 });
const groceries = JSON.parse(readFileSync(join(root, 'fixtures', 'receipts', 'groceries.json'), 'utf8'));

const url = await startBenchSandbox(svc);

let receipts = 0;
function receiptFile() {
  const file = join(work, `receipt-${++receipts}.json`);
  writeFileSync(file, JSON.stringify({ ...groceries, documentNumber: `BENCH-${process.pid}-${receipts}`, issueDate: new Date().toISOString() }));
  return file;
}

function run(bin, args, stateDir, extra = {}) {
  const { result, ms, cpuMs } = spawnTimed(process.execPath, [bin, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NO_COLOR: '1',
      CI: 'true',
      SVC_BASE_URL: url,
      SVC_API_KEY: company.apiKey,
      SVC_PRIVATE_KEY_FILE: keyFile,
      SVC_SECRET_STORE: 'file',
      SVC_CONFIG_DIR: join(work, 'config'),
      SVC_STATE_DIR: stateDir,
      ...extra,
    },
  });
  if (result.status !== 0) throw new Error(`svc ${args.join(' ')} exited ${result.status}: ${result.stderr.toString().trim()}`);
  return { ms, cpuMs, stdout: result.stdout.toString().trim() };
}

/** A receipt issued (untimed) with a return request of one item against it, for an issue to credit. */
function pendingReturn(bin, stateDir, extra) {
  const serviceReceiptId = run(bin, ['receipt', 'send', '--file', receiptFile(), '--email', 'alice@example.com'], stateDir, extra).stdout;
  const { requestId } = JSON.parse(run(svc, ['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1', '--json'], stateDir).stdout);
  return requestId;
}

let postgres;
try {
  const { postgresSkipReason, startPostgres } = await import('../test/postgres-server.ts');
  if (postgresSkipReason() === undefined) postgres = await startPostgres();
} catch (error) {
  console.log(`issue latency: no PostgreSQL rows (${error instanceof Error ? error.message.split('\n')[0] : error})`);
}

const builds = [{ name: 'svc', bin: svc, state: join(work, 'state'), env: {} }];
if (baseline) builds.push({ name: 'baseline', bin: baseline, state: join(work, 'state-baseline'), env: {} });
if (postgres) builds.push({ name: 'postgres', bin: svc, state: join(work, 'state-pg'), env: { SVC_DATABASE_URL: postgres.url } });
const cases = [{ name: 'sandbox outbox', time: () => run(svc, ['sandbox', 'outbox', '--json'], builds[0].state) }];
for (const b of builds) {
  cases.push({ name: `${b.name} receipt send`, build: b.name, verb: 'send', time: () => run(b.bin, ['receipt', 'send', '--file', receiptFile(), '--email', 'alice@example.com'], b.state, b.env) });
  cases.push({
    name: `${b.name} credit-note issue`,
    build: b.name,
    verb: 'issue',
    prepare: () => pendingReturn(b.bin, b.state, b.env),
    time: (requestId) => run(b.bin, ['credit-note', 'issue', requestId, '--yes'], b.state, b.env),
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const samples = cases.map(() => []);
const cpuSamples = cases.map(() => []);
for (let i = -2; i < runs; i++) {
  cases.forEach((c, k) => {
    const input = c.prepare?.();
    const { ms, cpuMs } = c.time(input);
    if (i >= 0) samples[k].push(ms);
    if (i >= 0 && cpuMs !== undefined) cpuSamples[k].push(cpuMs);
  });
}
const medians = samples.map(median);
const cpuMedians = cpuSamples.map((values) => (values.length === runs ? median(values) : undefined));
console.log(`issue latency: ${runs} interleaved runs each (after 2 warm-up), Node ${process.version}`);
cases.forEach((c, k) => console.log(`  ${c.name.padEnd(26)} ${medians[k].toFixed(1).padStart(8)} ms${cpuMedians[k] === undefined ? '' : `, CPU ${cpuMedians[k].toFixed(0).padStart(4)} ms`}`));
for (const verb of ['send', 'issue']) {
  const k = cases.findIndex((c) => c.build === 'svc' && c.verb === verb);
  const target = verb === 'send' ? 1.3 : 1.5;
  const ratio = medians[k] / medians[0];
  console.log(`issue latency ${verb}: ${ratio.toFixed(2)}x sandbox outbox (one request, no ledger; target <= ${target}x) ${ratio <= target ? 'ok' : 'MISSED'}`);
  if (cpuMedians[k] !== undefined) console.log(`issue latency ${verb}: CPU ${(cpuMedians[k] / cpuMedians[0]).toFixed(2)}x sandbox outbox's`);
  const b = cases.findIndex((c) => c.build === 'baseline' && c.verb === verb);
  if (b >= 0) {
    const ratio = medians[k] / medians[b];
    console.log(`issue latency ${verb}: ${ratio.toFixed(2)}x the baseline build (target <= 1.10x) ${ratio <= 1.1 ? 'ok' : 'MISSED'}`);
  }
  const p = cases.findIndex((c) => c.build === 'postgres' && c.verb === verb);
  if (p >= 0) console.log(`issue latency ${verb}: on PostgreSQL ${(medians[p] / medians[k]).toFixed(2)}x the embedded ledger (reported)`);
}
await postgres?.drop();
