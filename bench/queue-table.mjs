// `svc credit-note poll` drawing 1,000 return requests as a table on a terminal, against
// `svc credit-note poll --json` of the same items on the same terminal, interleaved in one
// run: the table (fitting columns, measuring display widths, colouring statuses) should cost
// little beside fetching and decrypting (target: under 1.2×). The terminal is a real pty
// (util-linux `script`), 160 columns wide. The merchant is set up on the built binary
// against a sandbox started here: `svc sandbox login`, a key pair, one receipt, and the
// sandbox's bulk trigger for the queue.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { positive, startBenchSandbox } from './lib/common.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'svc.js');
const ITEMS = positive('BENCH_ITEMS', 1000);
const RUNS = positive('BENCH_RUNS', 7);
const TARGET = 1.2;

if (spawnSync('script', ['--version']).status !== 0) {
  console.log('queue-table: skipped: needs `script` (Debian package bsdutils/util-linux) for a pseudo-terminal');
  process.exit(0);
}

const work = mkdtempSync(join(tmpdir(), 'svc-bench-table-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const url = await startBenchSandbox(bin, ['--auto-approve', '--rate-limit', '1000']);
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(SVC_|CI$|FORCE_COLOR$|NO_COLOR$|COLUMNS$)/.test(name))),
  SVC_CONFIG_DIR: join(work, 'config'),
  SVC_STATE_DIR: join(work, 'state'),
  SVC_SECRET_STORE: 'file',
  SVC_BASE_URL: url,
  COLUMNS: '160',
  TERM: 'xterm-256color',
};

function svc(args) {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd: root, env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`svc ${args.join(' ')} exited ${result.status}:\n${result.stderr}`);
  return result.stdout;
}

svc(['sandbox', 'login']);
svc(['keys', 'generate', '--upload']);
const { serviceReceiptId } = JSON.parse(svc(['receipt', 'send', '--file', 'fixtures/receipts/groceries.json', '--issue-date', 'now', '--email', 'alice@example.com', '--json']));
const bulk = await fetch(`${url}/sandbox/return-requests/bulk`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ serviceReceiptId, count: ITEMS, customerNote: 'Der Deckel leckt 🍮 日本語, and a note long enough to be cut on a terminal' }),
});
if (bulk.status !== 201) throw new Error(`POST /sandbox/return-requests/bulk answered ${bulk.status}: ${await bulk.text()}`);

/** One poll on a pty of 160 columns; the seconds it took and the bytes the terminal got. */
function onTerminal(extra) {
  const command = [process.execPath, bin, 'credit-note', 'poll', '--receipt', serviceReceiptId, ...extra].map((a) => `'${a}'`).join(' ');
  const started = process.hrtime.bigint();
  const result = spawnSync('script', ['-qefc', `stty cols 160 rows 50; ${command}`, '/dev/null'], { cwd: root, env, maxBuffer: 1 << 28 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0) throw new Error(`poll ${extra.join(' ')} exited ${result.status}:\n${result.stdout.toString().slice(-2000)}`);
  return { seconds, bytes: result.stdout.length, text: result.stdout.toString() };
}

// A check that the table is what is measured: a header, a row per item and the footer.
const sample = onTerminal([]).text;
if (!/REQUEST ID/.test(sample) || !new RegExp(`${ITEMS} requests · ${ITEMS} pending`).test(sample)) throw new Error(`the table run did not draw the table:\n${sample.slice(0, 1000)}`);
onTerminal(['--json']);

const table = [];
const json = [];
for (let i = 0; i < RUNS; i++) {
  table.push(onTerminal([]).seconds);
  json.push(onTerminal(['--json']).seconds);
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const ratio = median(table) / median(json);
console.log(`queue-table: ${ITEMS} requests on a 160-column pty, ${RUNS} interleaved runs, Node ${process.version}`);
console.log(`  poll (table)  median ${(median(table) * 1000).toFixed(0)} ms`);
console.log(`  poll --json   median ${(median(json) * 1000).toFixed(0)} ms`);
console.log(`queue-table: the table costs ${ratio.toFixed(2)}x poll --json of the same items (target < ${TARGET}x) ${ratio < TARGET ? 'ok' : 'MISSED'}`);
if (process.env.BENCH_STRICT === '1' && ratio >= TARGET) process.exitCode = 1;
