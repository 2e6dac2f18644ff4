// What `--jq` costs over `--json`: `svc sandbox outbox` against a sandbox started here, with
// `--json`, with `--jq .[]`, and with `--json | jq -c .[]` (Debian's jq, when installed), all
// interleaved so that a noisy neighbour hits them alike; medians. The difference of medians is
// jq's share: for the filters the fast path takes (src/io/jq-fast.ts), loading it and running
// it; for the others, loading jq's runtime, compiling its binary (overlapped with the request),
// compiling its builtins and the filter, running it. With GNU time (/usr/bin/time) each run's
// CPU time (user + system) is reported too: on a shared machine it moves far less than wall time.
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
const hasTime = spawnSync('/usr/bin/time', ['-f', '%U', 'true']).status === 0;
const cases = [
  { name: 'svc --json', command: [process.execPath, svc, 'sandbox', 'outbox', '--json'] },
  { name: 'svc --jq', command: [process.execPath, svc, 'sandbox', 'outbox', '--jq', '.[]'] },
  ...(hasJq ? [{ name: 'svc --json | jq', command: ['sh', '-c', `"${process.execPath}" "${svc}" sandbox outbox --json | jq -c '.[]'`] }] : []),
];

const cpu = cases.map(() => []);
function timeOnce([file, ...args], k) {
  const start = process.hrtime.bigint();
  const result = hasTime
    ? spawnSync('/usr/bin/time', ['-f', 'cpu %U %S', file, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env })
    : spawnSync(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  const times = /cpu (\S+) (\S+)\s*$/.exec(String(result.stderr));
  if (times && k !== undefined) cpu[k].push((Number(times[1]) + Number(times[2])) * 1000);
  return wall;
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

for (let i = 0; i < 3; i++) for (const c of cases) timeOnce(c.command);
const samples = cases.map(() => []);
for (let i = 0; i < runs; i++) cases.forEach((c, k) => samples[k].push(timeOnce(c.command, k)));
const medians = samples.map(median);
const cpuMedians = cpu.map((values) => (values.length > 0 ? median(values) : undefined));
console.log(`jq: ${runs} interleaved runs each (after 3 warm-up), Node ${process.version}`);
cases.forEach((c, k) => console.log(`  ${c.name.padEnd(18)} ${medians[k].toFixed(1).padStart(9)} ms median ${Math.min(...samples[k]).toFixed(1).padStart(8)} ms min${cpuMedians[k] === undefined ? '' : `, CPU ${cpuMedians[k].toFixed(0).padStart(4)} ms median`}`));
const [load] = loadavg();
if (load > availableParallelism() / 2) console.log(`  note: load average ${load.toFixed(1)} on ${availableParallelism()} CPUs; a busy machine inflates these figures`);
const overhead = medians[1] - medians[0];
console.log(`jq --jq over --json: +${overhead.toFixed(1)} ms (target <= ${TARGET_MS} ms) ${overhead <= TARGET_MS ? 'ok' : 'MISSED'}`);
if (hasJq) console.log(`jq --json | jq over --json: +${(medians[2] - medians[0]).toFixed(1)} ms`);
if (hasTime) console.log(`jq CPU time, --jq over --json: +${(cpuMedians[1] - cpuMedians[0]).toFixed(0)} ms (GNU time counts in 10 ms steps)`);
