// Cold start of `svc --version` and `svc --help` against bare `node -e 0`, and of a command
// that makes one request (`svc sandbox outbox` against a sandbox started here) against bare
// Node making the same request with node:http. All are interleaved in one loop so that a
// noisy neighbour or a CPU frequency change hits them alike; medians, because one slow
// outlier should not move the result.
import { spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startBenchSandbox } from './lib/common.mjs';

const svc = fileURLToPath(new URL('../bin/svc.js', import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 20);
if (!Number.isInteger(runs) || runs < 10) {
  console.error(`BENCH_RUNS must be a whole number of at least 10 (got ${process.env.BENCH_RUNS})`);
  process.exit(2);
}
const warmups = 3;

const sandboxUrl = await startBenchSandbox(svc);
const oneRequest = `require('node:http').get(${JSON.stringify(`${sandboxUrl}/sandbox/outbox`)}, (res) => res.resume())`;

const cases = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'svc --version', args: [svc, '--version'], target: 1.3 },
  { name: 'svc --help', args: [svc, '--help'], target: 1.2 },
  { name: 'node http.get', args: ['-e', oneRequest] },
  { name: 'svc sandbox outbox', args: [svc, 'sandbox', 'outbox', '--json'], against: 3, againstTarget: 1.35 },
];

function timeOnce(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', SVC_BASE_URL: sandboxUrl },
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) {
    throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr.toString().trim()}`);
  }
  return ms;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// Warm the OS file cache (and Node's compile cache, where it exists) before measuring.
for (let i = 0; i < warmups; i++) for (const c of cases) timeOnce(c.args);

const samples = cases.map(() => []);
for (let i = 0; i < runs; i++) {
  cases.forEach((c, k) => samples[k].push(timeOnce(c.args)));
}

const medians = samples.map(median);
const [baseline] = medians;
console.log(`startup: ${runs} interleaved runs each (after ${warmups} warm-up), Node ${process.version}`);
console.log(`  ${'command'.padEnd(18)} ${'median ms'.padStart(9)} ${'min ms'.padStart(8)}`);
cases.forEach((c, k) => {
  console.log(`  ${c.name.padEnd(18)} ${medians[k].toFixed(1).padStart(9)} ${Math.min(...samples[k]).toFixed(1).padStart(8)}`);
});
const [load] = loadavg();
if (load > availableParallelism() / 2) {
  console.log(`  note: load average ${load.toFixed(1)} on ${availableParallelism()} CPUs; a busy machine inflates these ratios`);
}
// A report, not a gate: wall-clock ratios on shared CI runners are too noisy to fail a build on.
for (const [k, c] of cases.entries()) {
  if (c.against !== undefined) {
    const ratio = medians[k] / medians[c.against];
    const verdict = ratio <= c.againstTarget ? 'ok' : 'MISSED';
    console.log(`startup ${c.name.replace('svc ', '')}: ${ratio.toFixed(2)}x ${cases[c.against].name} (one request; target <= ${c.againstTarget}x) ${verdict}`);
  }
  if (c.target === undefined) continue;
  const ratio = medians[k] / baseline;
  const verdict = ratio <= c.target ? 'ok' : 'MISSED';
  console.log(`startup ${c.name.replace('svc ', '')}: ${ratio.toFixed(2)}x node -e 0 (target <= ${c.target}x) ${verdict}`);
}
