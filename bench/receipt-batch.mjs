// Receipts a second issued by `svc receipt send --batch` (BENCH_BATCH lines, default 1,000)
// against a shell-style loop of single `svc receipt send` (BENCH_LOOP runs, default 50) over
// the same sandbox, in the same run (issue 13: at least 20×). The sandbox runs with
// --rate-limit 1000 so that both measure svc, not the sandbox's default 50 requests a second
// per client (3 requests a receipt: at most about 16 receipts a second); the batch at the
// default limit is reported too. Companies authenticate with the fixture's API key.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { positive, startBenchSandbox } from './lib/common.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const svc = join(root, 'bin', 'svc.js');
const BATCH = positive('BENCH_BATCH', 1000);
const LOOP = positive('BENCH_LOOP', 50);
const TARGET = 20;

const work = mkdtempSync(join(tmpdir(), 'svc-bench-batch-'));
const seed = JSON.parse(readFileSync(join(root, 'fixtures', 'sandbox.json'), 'utf8'));
const company = seed.companies[0];
const groceries = JSON.parse(readFileSync(join(root, 'fixtures', 'receipts', 'groceries.json'), 'utf8'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

let receipts = 0;
const documentNumber = () => `BB-${process.pid}-${++receipts}`;
function env(url, state) {
  return { ...process.env, NO_COLOR: '1', CI: 'true', SVC_BASE_URL: url, SVC_API_KEY: company.apiKey, SVC_SECRET_STORE: 'file', SVC_CONFIG_DIR: join(work, 'config'), SVC_STATE_DIR: join(work, state) };
}
function svcSync(args, url, state) {
  const result = spawnSync(process.execPath, [svc, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: env(url, state), maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`svc ${args.join(' ')} exited ${result.status}: ${result.stderr.toString().slice(-500)}`);
  return result;
}

function loopRate(url) {
  const file = join(work, 'single.json');
  const start = process.hrtime.bigint();
  for (let i = 0; i < LOOP; i++) {
    writeFileSync(file, JSON.stringify({ ...groceries, documentNumber: documentNumber() }));
    svcSync(['receipt', 'send', '--file', file, '--email', 'alice@example.com'], url, 'state-loop');
  }
  return LOOP / (Number(process.hrtime.bigint() - start) / 1e9);
}

function batchRate(url, state) {
  const file = join(work, `batch-${state}.jsonl`);
  writeFileSync(file, Array.from({ length: BATCH }, () => JSON.stringify({ template: { ...groceries, documentNumber: documentNumber() }, email: 'alice@example.com' })).join('\n'));
  const start = process.hrtime.bigint();
  const { stdout } = svcSync(['receipt', 'send', '--batch', file], url, state);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const ok = stdout.toString().split('\n').filter((l) => l.includes('serviceReceiptId')).length;
  if (ok !== BATCH) throw new Error(`the batch issued ${ok} of ${BATCH}`);
  return BATCH / seconds;
}

const fast = await startBenchSandbox(svc, ['--rate-limit', '1000']);
const loop = loopRate(fast);
const batch = batchRate(fast, 'state-batch');
const limited = batchRate(await startBenchSandbox(svc), 'state-limited');
console.log(`receipt batch: ${BATCH} receipts in one --batch vs a loop of ${LOOP} single sends, Node ${process.version}`);
console.log(`  loop of single sends      ${loop.toFixed(1).padStart(7)} receipts/s`);
console.log(`  --batch (--rate-limit 1000) ${batch.toFixed(1).padStart(5)} receipts/s`);
console.log(`  --batch (default limit)   ${limited.toFixed(1).padStart(7)} receipts/s (the sandbox allows 50 requests/s per client)`);
const ratio = batch / loop;
console.log(`receipt batch: ${ratio.toFixed(1)}x a loop of single sends (target >= ${TARGET}x) ${ratio >= TARGET ? 'ok' : 'MISSED'}`);
if (process.env.BENCH_STRICT === '1' && ratio < TARGET) process.exitCode = 1;
