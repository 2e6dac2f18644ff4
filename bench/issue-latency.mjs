// Wall time of `svc receipt send` and `svc credit-note issue` (each through the ledger: an
// intent recorded and fsynced before the submission, the record and the closed intent after)
// against `svc sandbox outbox`, a command making one request and touching no ledger, in the
// same run. With BENCH_BASELINE_SVC=/path/to/an/older/bin/svc.js the older build's send and
// issue run interleaved too, and the figure is the ratio to them (issue 10: within 10 %).
// Companies authenticate with the fixture's API key, so no login is needed. Where a
// PostgreSQL server can be started (run through tsx, as `npm run bench` does), the same
// commands also run on a shared PostgreSQL ledger (SVC_DATABASE_URL), reported as a ratio to
// the embedded one.
//
// Wall time on a shared machine is mostly other people's load and the disk's fsyncs, so the
// targets are judged on instructions where valgrind is installed: each command once more under
// `valgrind --tool=callgrind` (user-space instructions executed, which load does not move; one
// run each is repeatable to ~1%, ~2 minutes in all; BENCH_INSTRUCTIONS=0 skips it, =1 requires
// it; the kernel's share, system calls and fsyncs, is not in it: CPU time has it), and
// once under `strace -f -c -w` for its fsync/fdatasync calls and the wall time spent in them.
// The wall and CPU figures are still printed, and the target is judged on wall time where
// valgrind is missing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
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

function svcEnv(stateDir, extra) {
  return {
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
  };
}

function run(bin, args, stateDir, extra = {}) {
  const { result, ms, cpuMs } = spawnTimed(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: svcEnv(stateDir, extra) });
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
const cases = [{ name: 'sandbox outbox', bin: svc, args: () => ['sandbox', 'outbox', '--json'], state: builds[0].state, env: {} }];
for (const b of builds) {
  cases.push({ name: `${b.name} receipt send`, build: b.name, verb: 'send', bin: b.bin, args: () => ['receipt', 'send', '--file', receiptFile(), '--email', 'alice@example.com'], state: b.state, env: b.env });
  cases.push({
    name: `${b.name} credit-note issue`,
    build: b.name,
    verb: 'issue',
    bin: b.bin,
    prepare: () => pendingReturn(b.bin, b.state, b.env),
    args: (requestId) => ['credit-note', 'issue', requestId, '--yes'],
    state: b.state,
    env: b.env,
  });
}
const time = (c, input) => run(c.bin, c.args(input), c.state, c.env);

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
    const { ms, cpuMs } = time(c, input);
    if (i >= 0) samples[k].push(ms);
    if (i >= 0 && cpuMs !== undefined) cpuSamples[k].push(cpuMs);
  });
}
const medians = samples.map(median);
const cpuMedians = cpuSamples.map((values) => (values.length === runs ? median(values) : undefined));

// Instructions (callgrind) and fsyncs (strace), one run each after the timed ones (code cache warm).
const available = (command, args) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const haveValgrind = available('valgrind', ['--version']);
if (process.env.BENCH_INSTRUCTIONS === '1' && !haveValgrind) {
  console.error('BENCH_INSTRUCTIONS=1 needs valgrind (Debian package valgrind)');
  process.exit(2);
}
const countInstructions = haveValgrind && process.env.BENCH_INSTRUCTIONS !== '0';
const countFsyncs = available('strace', ['-V']);
/** The case once more with a tool in front of node: its stderr, where the tools write. */
function wrapped(prefix, c, input) {
  const args = c.args(input);
  const result = spawnSync(prefix[0], [...prefix.slice(1), process.execPath, c.bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: svcEnv(c.state, c.env) });
  if (result.status !== 0) throw new Error(`${prefix[0]} svc ${args.join(' ')} exited ${result.status}: ${result.stderr.toString().trim().slice(-2000)}`);
  return result.stderr.toString();
}
function instructions(c) {
  const out = join(work, 'callgrind.out');
  const stderr = wrapped(['valgrind', '--tool=callgrind', `--callgrind-out-file=${out}`], c, c.prepare?.());
  rmSync(out, { force: true });
  const total = /Collected : (\d+)/.exec(stderr);
  if (!total) throw new Error(`callgrind printed no total for ${c.name}`);
  return Number(total[1]);
}
/** fsync + fdatasync calls of the whole process (threads too) and the wall time spent in them. */
function fsyncs(c) {
  const out = join(work, 'strace.txt');
  wrapped(['strace', '-f', '-c', '-w', '-o', out, '-e', 'trace=fsync,fdatasync'], c, c.prepare?.());
  let calls = 0;
  let seconds = 0;
  for (const line of readFileSync(out, 'utf8').split('\n')) {
    const cells = line.trim().split(/\s+/);
    if (cells.length >= 5 && /^f(data)?sync$/.test(cells.at(-1))) {
      seconds += Number(cells[1]);
      calls += Number(cells[3]);
    }
  }
  return { calls, ms: seconds * 1000 };
}
const counted = cases.map((c) => (c.build === 'postgres' ? {} : { instructions: countInstructions ? instructions(c) : undefined, fsyncs: countFsyncs ? fsyncs(c) : undefined }));

const load = loadavg()[0].toFixed(1);
console.log(`issue latency: ${runs} interleaved runs each (after 2 warm-up), Node ${process.version}, load average ${load}`);
cases.forEach((c, k) => {
  const { instructions: count, fsyncs: synced } = counted[k];
  console.log(
    `  ${c.name.padEnd(26)} wall ${medians[k].toFixed(1).padStart(7)} ms` +
      (cpuMedians[k] === undefined ? '' : `, CPU ${cpuMedians[k].toFixed(0).padStart(4)} ms`) +
      (count === undefined ? '' : `, ${(count / 1e6).toFixed(0).padStart(5)}M instructions`) +
      (synced === undefined ? '' : `, ${synced.calls} fsyncs (${synced.ms.toFixed(1)} ms in them, one run)`),
  );
});
if (!countInstructions) console.log(`issue latency: no instruction counts (${haveValgrind ? 'BENCH_INSTRUCTIONS=0' : 'no valgrind: Debian package valgrind'}); the targets are judged on wall time`);
if (!countFsyncs) console.log('issue latency: no fsync counts (no strace: Debian package strace)');
for (const verb of ['send', 'issue']) {
  const k = cases.findIndex((c) => c.build === 'svc' && c.verb === verb);
  const target = verb === 'send' ? 1.3 : 1.5;
  const judge = (ratio) => `(target <= ${target}x) ${ratio <= target ? 'ok' : 'MISSED'}`;
  const ratio = medians[k] / medians[0];
  if (countInstructions) {
    const counts = counted[k].instructions / counted[0].instructions;
    console.log(`issue latency ${verb}: instructions ${counts.toFixed(2)}x sandbox outbox's (callgrind: user-space only, one run each; one request, no ledger) ${judge(counts)}`);
    console.log(`issue latency ${verb}: wall ${ratio.toFixed(2)}x sandbox outbox (median; reported: load ${load} and the disk's fsyncs move it)`);
  } else {
    console.log(`issue latency ${verb}: wall ${ratio.toFixed(2)}x sandbox outbox (median; one request, no ledger) ${judge(ratio)}`);
  }
  if (cpuMedians[k] !== undefined) console.log(`issue latency ${verb}: CPU ${(cpuMedians[k] / cpuMedians[0]).toFixed(2)}x sandbox outbox's (median, GNU time's 10 ms steps)`);
  const b = cases.findIndex((c) => c.build === 'baseline' && c.verb === verb);
  if (b >= 0) {
    const ratio = medians[k] / medians[b];
    console.log(`issue latency ${verb}: wall ${ratio.toFixed(2)}x the baseline build (target <= 1.10x) ${ratio <= 1.1 ? 'ok' : 'MISSED'}`);
    if (countInstructions) console.log(`issue latency ${verb}: instructions ${(counted[k].instructions / counted[b].instructions).toFixed(2)}x the baseline build's`);
  }
  const p = cases.findIndex((c) => c.build === 'postgres' && c.verb === verb);
  if (p >= 0) console.log(`issue latency ${verb}: on PostgreSQL ${(medians[p] / medians[k]).toFixed(2)}x the embedded ledger (reported)`);
}
await postgres?.drop();
