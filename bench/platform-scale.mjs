// Issue 31's scale figures in one run: bench/platform.mjs's parts at 1,000 and at 10,000
// Grants (BENCH_SCALE_GRANTS, BENCH_SCALE_BASELINE), one after the other, each part's cost
// per Grant at 10,000 as a ratio to the same at 1,000 (target: within 1.5×, the cost flat),
// and each process's peak RSS against 300 MiB:
// - `grants list --details --all-grants`, cold (a token request a Grant) and warm, on loopback;
// - `credit-note poll --all-grants` over Grants holding 20,000 requests: what it costs beyond
//   one Grant's poll of the same 20,000, per Grant;
// - `webhook subscribe --all-grants --own-path`, the first run and every one reused;
// - `webhook listen` with a subscription a Grant, each at a path of its own: ready time beyond
//   one subscription's, per subscription.
// Needs `npm run build`; takes about 5 minutes (`node --import tsx bench/platform-scale.mjs`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { positive } from './lib/common.mjs';

const platform = fileURLToPath(new URL('platform.mjs', import.meta.url));
const big = positive('BENCH_SCALE_GRANTS', 10000);
const base = positive('BENCH_SCALE_BASELINE', 1000);
const TARGET_RATIO = 1.5;
const TARGET_RSS_MIB = 300;
const POLL_ITEMS = 20000;
const work = mkdtempSync(join(tmpdir(), 'svc-bench-scale-'));

/** One part of platform.mjs at `grants`, its figures as platform.mjs writes them. */
function part(name, grants, extra = {}) {
  const out = join(work, `${name}-${grants}.json`);
  const r = spawnSync(process.execPath, [...process.execArgv, platform], {
    env: { ...process.env, BENCH_PART: name, BENCH_GRANTS: String(grants), BENCH_SUBSCRIPTIONS: String(grants), BENCH_JSON_OUT: out, ...extra },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`platform.mjs ${name} at ${grants} exited ${r.status}:\n${r.stderr}`);
  return JSON.parse(readFileSync(out, 'utf8'));
}

const rows = [];
const row = (what, unit, small, large, rss) => {
  const ratio = large / small;
  const ok = ratio <= TARGET_RATIO && (rss === undefined || rss < TARGET_RSS_MIB);
  rows.push({ what, unit, small, large, ratio, rss, ok });
};
try {
  const t = [base, big].map((g) => part('tokens', g, { BENCH_LATENCY: '0' }));
  row('grants list --details --all-grants, cold', 'ms a Grant', t[0].tokens.coldMsPerGrant, t[1].tokens.coldMsPerGrant);
  row('grants list --details --all-grants, warm', 'ms a Grant', t[0].tokens.warmMsPerGrant, t[1].tokens.warmMsPerGrant);
  const p = [base, big].map((g) => part('poll', g, { BENCH_POLL_ITEMS: String(POLL_ITEMS), BENCH_ROUNDS: '1' }));
  const beyond = (f, g) => (f.poll.allMs - f.poll.oneMs) / g;
  row(`credit-note poll --all-grants, ${POLL_ITEMS} requests, beyond one Grant's poll`, 'ms a Grant', beyond(p[0], base), beyond(p[1], big), Math.max(p[1].poll.allRssMiB, p[1].poll.coldRssMiB));
  row('credit-note poll --all-grants, first run, beyond one Grant\'s', 'ms a Grant', (p[0].poll.coldMs - p[0].poll.coldOneMs) / base, (p[1].poll.coldMs - p[1].poll.coldOneMs) / big);
  const s = [base, big].map((g) => part('subscribe', g));
  row('webhook subscribe --all-grants --own-path, first run', 'ms a Grant', s[0].subscribe.firstMsPerGrant, s[1].subscribe.firstMsPerGrant, s[1].subscribe.firstRssMiB);
  row('webhook subscribe --all-grants --own-path, every one reused', 'ms a Grant', s[0].subscribe.againMsPerGrant, s[1].subscribe.againMsPerGrant, s[1].subscribe.againRssMiB);
  const l = [base, big].map((g) => part('listen', g, { BENCH_ROUNDS: '1' }));
  const ready = (f, g) => (f.listen.many.readyMs - f.listen.one.readyMs) / g;
  row('webhook listen, own paths: ready, beyond one subscription\'s', 'ms a subscription', ready(l[0], base), ready(l[1], big), l[1].listen.many.peakMiB);
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`platform-scale: ${big.toLocaleString('en')} Grants against ${base.toLocaleString('en')}, Node ${process.version}, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
for (const r of rows) {
  console.log(`  ${r.what.padEnd(68)} ${r.large.toFixed(3)} vs ${r.small.toFixed(3)} ${r.unit}: ${r.ratio.toFixed(2)}x${r.rss === undefined ? '' : `, peak RSS ${r.rss.toFixed(0)} MiB`} ${r.ok ? 'ok' : 'MISSED'}`);
}
console.log(`platform-scale: cost per Grant at ${big} within ${TARGET_RATIO}x of ${base}'s, peak RSS < ${TARGET_RSS_MIB} MiB: ${rows.every((r) => r.ok) ? 'ok' : 'MISSED'}`);
if (process.env.BENCH_STRICT === '1' && !rows.every((r) => r.ok)) process.exitCode = 1;
