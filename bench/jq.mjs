// What `--jq` costs over `--json`: `svc sandbox outbox` against a sandbox started here, with
// `--json`, with `--jq .[]`, and with `--json | jq -c .[]` (Debian's jq, when installed), all
// interleaved so that a noisy neighbour hits them alike; medians. The difference of medians is
// jq's share: loading its runtime, compiling its binary (overlapped with the request),
// compiling its builtins and the filter, running it.
import { spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startBenchSandbox } from './lib/common.mjs';

// BENCH_SVC: another build's bin/svc.js, to compare (e.g. main's).
const svc = process.env.BENCH_SVC ?? fileURLToPath(new URL('../bin/svc.js', import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 20);
const TARGET_MS = 20;

const sandboxUrl = await startBenchSandbox(svc);
const env = { ...process.env, NO_COLOR: '1', SVC_BASE_URL: sandboxUrl };
const hasJq = spawnSync('jq', ['--version']).status === 0;
const cases = [
  { name: 'svc --json', command: [process.execPath, svc, 'sandbox', 'outbox', '--json'] },
  { name: 'svc --jq', command: [process.execPath, svc, 'sandbox', 'outbox', '--jq', '.[]'] },
  ...(hasJq ? [{ name: 'svc --json | jq', command: ['sh', '-c', `"${process.execPath}" "${svc}" sandbox outbox --json | jq -c '.[]'`] }] : []),
];

function timeOnce([file, ...args]) {
  const start = process.hrtime.bigint();
  const result = spawnSync(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

for (let i = 0; i < 3; i++) for (const c of cases) timeOnce(c.command);
const samples = cases.map(() => []);
for (let i = 0; i < runs; i++) cases.forEach((c, k) => samples[k].push(timeOnce(c.command)));
const medians = samples.map(median);
console.log(`jq: ${runs} interleaved runs each (after 3 warm-up), Node ${process.version}`);
cases.forEach((c, k) => console.log(`  ${c.name.padEnd(18)} ${medians[k].toFixed(1).padStart(9)} ms median ${Math.min(...samples[k]).toFixed(1).padStart(8)} ms min`));
const [load] = loadavg();
if (load > availableParallelism() / 2) console.log(`  note: load average ${load.toFixed(1)} on ${availableParallelism()} CPUs; a busy machine inflates these figures`);
const overhead = medians[1] - medians[0];
console.log(`jq --jq over --json: +${overhead.toFixed(1)} ms (target <= ${TARGET_MS} ms) ${overhead <= TARGET_MS ? 'ok' : 'MISSED'}`);
if (hasJq) console.log(`jq --json | jq over --json: +${(medians[2] - medians[0]).toFixed(1)} ms`);
