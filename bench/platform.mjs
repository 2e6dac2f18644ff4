// A platform's figures (issue 25), on the built binary:
// 1. Tokens over 2,000 Grants: a sandbox started with `--companies 2000`, one `sandbox login`,
//    then `grants list --details` over every Grant with no cached token (cold), with
//    `--concurrency 1` (one Grant at a time) and with the default; token requests are counted
//    in the sandbox's request log: exactly one per Grant cold, none on a warm run. Twice: on
//    loopback (answers in well under a millisecond: svc's own CPU is all there is to see), and
//    against a sandbox that answers like a service across a network (`--latency`, default
//    20-60 ms), where the fan-out's ratio is judged. There one Grant at a time costs two round
//    trips a Grant (~80 ms), so it runs over the first BENCH_SERIAL_GRANTS (default 250) and is
//    compared per Grant; BENCH_SERIAL_GRANTS=2000 runs it over all of them (~3 min).
// 2. `credit-note poll --all-grants` over 2,000 Grants holding 10,000 return requests in all
//    (the bulk trigger deals them out, 5 a company), against `credit-note poll` of one Grant
//    holding 10,000, on two sandboxes alike (loopback); rounds alternate, warm tokens, medians
//    compared; the cold first run over all Grants reported too. Peak RSS of each poll process
//    (threads included) read by a preload at its exit (process.resourceUsage().maxRSS).
// 3. `webhook listen` with 2,000 subscriptions, each delivering to a path of its own
//    (`subscribe --own-path`), against the same listener with one subscription, and with
//    2,000 subscriptions all at one path (every secret tried, as before own paths): deliveries
//    signed with the last subscription's secret, rounds alternating, medians compared.
import { spawn, spawnSync } from 'node:child_process';
import { createHmac, createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { positive } from './lib/common.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const svcBin = join(root, 'bin', 'svc.js');
if (!existsSync(join(root, 'dist', 'main.cjs'))) {
  console.error('platform: dist/ is missing; run `npm run build` first (npm run bench does)');
  process.exit(2);
}
const GRANTS = positive('BENCH_GRANTS', 2000);
const SUBSCRIPTIONS = positive('BENCH_SUBSCRIPTIONS', 2000);
const REQUESTS = positive('BENCH_REQUESTS', 2000);
const ROUNDS = positive('BENCH_ROUNDS', 3);
const CONNECTIONS = 16;
const TARGET_LISTEN = 0.9;
const TARGET_FAN_OUT = 10;
const POLL_ITEMS = positive('BENCH_POLL_ITEMS', 10000);
const TARGET_POLL = 2;
const TARGET_POLL_RSS_MIB = 250;
// 4. (BENCH_PART=subscribe only) `webhook subscribe` creating 250 subscriptions on a profile
//    keeping none, against the same for 250 other Grants with 2,250 kept, and the first
//    `webhook subscribe --all-grants` over 2,000 Grants (warm tokens, file secret store).
// BENCH_PART=tokens, poll, listen or subscribe runs one part only; BENCH_RATE_LIMIT passes --rate-limit to the sandbox.
const PART = process.env.BENCH_PART ?? 'all';
// BENCH_LATENCY=0 leaves out the run against a sandbox with latency.
const LATENCY = process.env.BENCH_LATENCY ?? '20-60ms';
const SERIAL_GRANTS = Math.min(GRANTS, positive('BENCH_SERIAL_GRANTS', 250));
const RATE_LIMIT = process.env.BENCH_RATE_LIMIT === undefined ? [] : ['--rate-limit', String(positive('BENCH_RATE_LIMIT', 100000))];

// BENCH_JSON_OUT=FILE: the figures as JSON too, for bench/platform-scale.mjs.
const figures = {};
process.on('exit', () => {
  if (process.env.BENCH_JSON_OUT) writeFileSync(process.env.BENCH_JSON_OUT, JSON.stringify({ grants: GRANTS, subscriptions: SUBSCRIPTIONS, ...figures }));
});
const work = mkdtempSync(join(tmpdir(), 'svc-bench-platform-'));
const children = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
});
const baseEnv = (name) => ({ PATH: process.env.PATH, HOME: work, NO_COLOR: '1', SVC_CONFIG_DIR: join(work, name, 'config'), SVC_STATE_DIR: join(work, name, 'state'), SVC_SECRET_STORE: 'file' });
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** Starts a process and resolves with the URL of its `listening on URL` line on `stream`, and its text so far. */
function start(args, env, stream) {
  const startedAt = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const seen = { stdout: '', stderr: '' };
  child.stdout.on('data', (c) => (seen.stdout += c));
  child.stderr.on('data', (c) => (seen.stderr += c));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const url = /listening on (http:\/\/\S+)/.exec(seen[stream])?.[1];
      if (url) {
        clearInterval(timer);
        resolve({
          url,
          text: seen,
          readyMs: performance.now() - startedAt,
          // Peak resident memory so far (Linux), in MiB.
          peakMiB: () => {
            try {
              return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) / 1024;
            } catch {
              return Number.NaN;
            }
          },
          stop: () => new Promise((done) => (child.once('exit', done), child.kill('SIGTERM'))),
        });
      }
    }, 20);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`${args.join(' ')} exited (${code}) before listening:\n${seen.stderr}`));
    });
  });
}

function svc(args, env, nodeArgs = []) {
  const started = performance.now();
  const r = spawnSync(process.execPath, [...nodeArgs, svcBin, ...args], { env, cwd: root, encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  return { ms: performance.now() - started, stdout: r.stdout };
}

/** Cold (serial over `serialGrants`, then default concurrency) and warm `grants list --details`, on a sandbox with `sandboxArgs`. */
async function tokens(name, sandboxArgs, serialGrants) {
  const env = baseEnv(name);
  const sandbox = await start([svcBin, 'sandbox', 'start', '--port', '0', '--auto-approve', '--companies', String(GRANTS), ...RATE_LIMIT, ...sandboxArgs], env, 'stdout');
  env.SVC_BASE_URL = sandbox.url;
  svc(['sandbox', 'login'], env);
  const tokenRequests = () => (sandbox.text.stderr.match(/POST \/oauth2\/token 200/g) ?? []).length;
  const settle = () => new Promise((resolve) => setTimeout(resolve, 500));
  const tokenFile = join(env.SVC_STATE_DIR, 'local', 'tokens.db');
  const dropTokens = () => ['', '-wal', '-shm'].forEach((end) => rmSync(tokenFile + end, { force: true }));
  const sample = join(work, `${name}-grants.txt`);
  writeFileSync(sample, JSON.parse(svc(['grants', 'list', '--json'], env).stdout).slice(0, serialGrants).map((g) => g.grant_id).join('\n'));
  const run = async (extra, expected) => {
    const before = tokenRequests();
    const { ms, stdout } = svc(['grants', 'list', '--details', '--json', ...extra], env);
    const listed = JSON.parse(stdout).length;
    if (listed !== expected) throw new Error(`grants list --details listed ${listed} of ${expected}`);
    await settle();
    return { ms, grants: expected, perGrant: ms / expected, tokenRequests: tokenRequests() - before };
  };
  dropTokens();
  const serial = await run(['--concurrency', '1', ...(serialGrants < GRANTS ? ['--grants', sample] : [])], serialGrants);
  dropTokens();
  const cold = await run([], GRANTS);
  const warm = await run([], GRANTS);
  await sandbox.stop();
  return { serial, cold, warm };
}

function reportTokens(label, t) {
  const secs = (r) => `${(r.ms / 1000).toFixed(1)} s, ${r.perGrant.toFixed(2)} ms a Grant, ${r.tokenRequests} token requests`;
  const over = t.serial.grants < GRANTS ? ` (the first ${t.serial.grants} Grants)` : '';
  console.log(`platform: ${GRANTS} Grants of one client, sandbox ${label}${RATE_LIMIT.length ? ` --rate-limit ${RATE_LIMIT[1]}` : ''}, Node ${process.version}, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`  grants list --details, cold, one Grant at a time (--concurrency 1)${over}  ${secs(t.serial)}`);
  console.log(`  grants list --details, cold (default concurrency)               ${secs(t.cold)}`);
  console.log(`  grants list --details, warm                                     ${secs(t.warm)}`);
  // Both cold, in this run: the fan-out against the same command one Grant at a time.
  return t.serial.perGrant / t.cold.perGrant;
}

// ---- credit-note poll across Grants ------------------------------------------------------
/** A sandbox of GRANTS companies with POLL_ITEMS return requests, spread over all of them or all in the first. */
async function pollWorld(name, spread) {
  const env = baseEnv(name);
  const sandbox = await start([svcBin, 'sandbox', 'start', '--port', '0', '--auto-approve', '--companies', String(GRANTS), ...RATE_LIMIT], env, 'stdout');
  env.SVC_BASE_URL = sandbox.url;
  svc(['sandbox', 'login'], env);
  svc(['keys', 'generate', '--upload'], env);
  const sent = JSON.parse(svc(['receipt', 'send', '--grant', 'EU000000001', '--file', 'fixtures/receipts/groceries.json', '--email', 'alice@example.com', '--json'], env).stdout);
  const bulk = await fetch(`${sandbox.url}/sandbox/return-requests/bulk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ serviceReceiptId: sent.serviceReceiptId, count: POLL_ITEMS, ...(spread ? { companies: GRANTS } : {}) }),
  });
  if (bulk.status !== 201) throw new Error(`POST /sandbox/return-requests/bulk answered ${bulk.status}: ${await bulk.text()}`);
  return { env, sandbox };
}

/** `svc args` with its peak RSS (MiB, threads included) and CPU read by a preload at its exit. */
function measured(args, env) {
  const usage = join(work, `usage-${randomBytes(4).toString('hex')}.json`);
  const probe = `data:text/javascript,${encodeURIComponent(
    `import { writeFileSync } from 'node:fs'; process.on('exit', () => { const u = process.resourceUsage(); writeFileSync(${JSON.stringify(usage)}, JSON.stringify({ maxRSS: u.maxRSS, cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000 })); });`,
  )}`;
  const { ms, stdout } = svc(args, env, ['--import', probe]);
  const { maxRSS, cpuMs } = JSON.parse(readFileSync(usage, 'utf8'));
  return { ms, stdout, rssMiB: maxRSS / 1024, cpuMs };
}

/** One poll: its wall time, peak RSS (MiB) and CPU, and how many requests it listed (failed Grants refused). */
function timedPoll(env, args) {
  const { ms, stdout, rssMiB, cpuMs } = measured(['credit-note', 'poll', '--json', ...args], env);
  const items = JSON.parse(stdout);
  const failed = items.filter((i) => i.error !== undefined || i.decryptError !== undefined).length;
  if (failed > 0 || items.length !== POLL_ITEMS) throw new Error(`credit-note poll ${args.join(' ')} listed ${items.length} requests (${failed} failed) of ${POLL_ITEMS}`);
  return { ms, rssMiB, cpuMs, companies: new Set(items.map((i) => i.companyId)).size };
}

async function pollAcross() {
  const single = await pollWorld('poll-single', false);
  const spread = await pollWorld('poll-spread', true);
  const one = () => timedPoll(single.env, ['--grant', 'EU000000001']);
  const all = () => timedPoll(spread.env, ['--all-grants']);
  // The first run of each: no token yet for 1,999 of the Grants, nothing of the queue kept yet.
  const coldOne = one();
  const cold = all();
  const runs = { one: [], all: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) runs.one.push(one()), runs.all.push(all());
      else runs.all.push(all()), runs.one.push(one());
    }
  } finally {
    await Promise.all([single.sandbox.stop(), spread.sandbox.stop()]);
  }
  const mid = (xs, key) => median(xs.map((x) => x[key]));
  const peak = (xs) => Math.max(...xs.map((x) => x.rssMiB));
  return { cold, coldOne, one: { ms: mid(runs.one, 'ms'), cpuMs: mid(runs.one, 'cpuMs'), rssMiB: peak(runs.one) }, all: { ms: mid(runs.all, 'ms'), cpuMs: mid(runs.all, 'cpuMs'), rssMiB: Math.max(peak(runs.all), cold.rssMiB), companies: cold.companies } };
}

// ---- webhook listen ---------------------------------------------------------------------
const ownSegment = (grantId) => `g${createHash('sha256').update(grantId).digest('hex').slice(0, 24)}`;

/** A profile whose subscriptions (with secrets in the secret file) deliver to own paths, or all to /webhooks. */
function profileWith(name, count, ownPaths) {
  const env = baseEnv(name);
  const subscriptions = Array.from({ length: count }, (_, i) => ({
    id: `whsub_bench_${i}`,
    name: `bench ${i}`,
    notificationUrl: `http://127.0.0.1:9/webhooks${ownPaths ? `/${ownSegment(`grant-${i}`)}` : ''}`,
    events: ['RETURN_REQUESTED'],
    createdAt: new Date().toISOString(),
    grantId: `grant-${i}`,
  }));
  const secrets = Object.fromEntries(subscriptions.map((s) => [`local/webhook-secret/${s.id}`, `whsec_${randomBytes(32).toString('base64')}`]));
  mkdirSync(join(env.SVC_STATE_DIR, 'local', 'webhooks'), { recursive: true, mode: 0o700 });
  writeFileSync(join(env.SVC_STATE_DIR, 'local', 'webhooks', 'subscriptions.json'), JSON.stringify({ version: 1, subscriptions }));
  mkdirSync(env.SVC_CONFIG_DIR, { recursive: true, mode: 0o700 });
  writeFileSync(join(env.SVC_CONFIG_DIR, 'secrets.json'), JSON.stringify(secrets), { mode: 0o600 });
  const last = subscriptions.at(-1);
  return { env, path: new URL(last.notificationUrl).pathname, secret: secrets[`local/webhook-secret/${last.id}`] };
}

let bodyCount = 0;
function body() {
  const n = bodyCount++;
  const item = { clientId: 'client-bench', companyId: 'c0000000-0000-4000-8000-000000000001', created_at: new Date().toISOString(), serviceReceiptId: `sr-${n}`, encryptedCreditNoteInitiationRequest: randomBytes(600).toString('base64'), encryptedSymmetricKey: randomBytes(256).toString('base64') };
  return Buffer.from(JSON.stringify({ event: 'RETURN_REQUESTED', data: { creditNoteInitiationRequest: item } }));
}

/** Acks a second for `count` unique deliveries to `path`, signed with `secret`. */
async function load(origin, path, secret, count) {
  const pool = new Pool(origin, { connections: CONNECTIONS, pipelining: 1 });
  const bodies = Array.from({ length: count }, body);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < count) {
        const raw = bodies[next++];
        const t = Math.floor(Date.now() / 1000);
        const signature = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.`).update(raw).digest('hex')}`;
        const res = await pool.request({ path, method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature }, body: raw });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}`);
      }
    }),
  );
  const perSecond = count / ((performance.now() - started) / 1000);
  await pool.close();
  return perSecond;
}

async function listen() {
  const kinds = {
    one: profileWith('one', 1, true),
    many: profileWith('many', SUBSCRIPTIONS, true),
    manyOnePath: profileWith('many-one-path', SUBSCRIPTIONS, false),
  };
  const listeners = {};
  for (const [name, profile] of Object.entries(kinds)) listeners[name] = await start([svcBin, 'webhook', 'listen', '--port', '0'], profile.env, 'stderr');
  const rates = { one: [], many: [], manyOnePath: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? Object.keys(kinds) : Object.keys(kinds).reverse();
      for (const name of order) {
        const { origin } = new URL(listeners[name].url);
        await load(origin, kinds[name].path, kinds[name].secret, Math.min(300, REQUESTS));
        rates[name].push(await load(origin, kinds[name].path, kinds[name].secret, REQUESTS));
      }
    }
  } finally {
    for (const [name, l] of Object.entries(listeners)) console.log(`  ${name}: ready in ${l.readyMs.toFixed(0)} ms, peak RSS ${l.peakMiB().toFixed(0)} MiB`);
    figures.listen = Object.fromEntries(Object.entries(listeners).map(([name, l]) => [name, { readyMs: l.readyMs, peakMiB: l.peakMiB() }]));
    await Promise.all(Object.values(listeners).map((l) => l.stop()));
  }
  return Object.fromEntries(Object.entries(rates).map(([name, r]) => [name, median(r)]));
}

let tokensOk = true;
let fanOutOk = true;
if (PART === 'all' || PART === 'tokens') {
  const loop = await tokens('tokens', [], GRANTS);
  const loopRatio = reportTokens('on loopback (answers in < 1 ms)', loop);
  figures.tokens = { coldMsPerGrant: loop.cold.perGrant, warmMsPerGrant: loop.warm.perGrant, coldTokenRequests: loop.cold.tokenRequests, warmTokenRequests: loop.warm.tokenRequests };
  tokensOk = loop.cold.tokenRequests === GRANTS && loop.warm.tokenRequests === 0;
  console.log(`platform tokens: ${loop.cold.tokenRequests} token requests cold (target ${GRANTS}), ${loop.warm.tokenRequests} warm (target 0) ${tokensOk ? 'ok' : 'MISSED'}`);
  console.log(`platform fan-out on loopback: cold ${loopRatio.toFixed(1)}x one Grant at a time (reported: svc's own CPU is all there is to overlap); warm ${loop.warm.perGrant.toFixed(2)} ms a Grant`);
  if (LATENCY !== '0') {
    const far = await tokens('tokens-latency', ['--latency', LATENCY], SERIAL_GRANTS);
    const ratio = reportTokens(`--latency ${LATENCY} (a service across a network)`, far);
    const counted = far.cold.tokenRequests === GRANTS && far.warm.tokenRequests === 0;
    tokensOk &&= counted;
    fanOutOk = ratio >= TARGET_FAN_OUT;
    console.log(`platform fan-out: cold grants list --details over ${GRANTS} Grants ${ratio.toFixed(1)}x faster a Grant than one at a time, sandbox --latency ${LATENCY} (target >= ${TARGET_FAN_OUT}x) ${fanOutOk ? 'ok' : 'MISSED'}; token requests ${far.cold.tokenRequests} cold, ${far.warm.tokenRequests} warm ${counted ? 'ok' : 'MISSED'}`);
  }
}

let pollOk = true;
if (PART === 'all' || PART === 'poll') {
  const p = await pollAcross();
  const line = (r) => `${(r.ms / 1000).toFixed(2)} s, CPU ${(r.cpuMs / 1000).toFixed(2)} s, peak RSS ${r.rssMiB.toFixed(0)} MiB`;
  console.log(`platform: credit-note poll of ${POLL_ITEMS} return requests, medians of ${ROUNDS} alternating rounds, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`  one Grant holding ${POLL_ITEMS} (--grant)                     ${line(p.one)}`);
  console.log(`  --all-grants, ${GRANTS} Grants holding ${POLL_ITEMS} in all (warm)  ${line(p.all)}`);
  console.log(`  one Grant, first run (its queue not kept yet)               ${line(p.coldOne)}`);
  console.log(`  --all-grants, first run (${GRANTS} token requests)           ${line(p.cold)}`);
  figures.poll = { allMs: p.all.ms, oneMs: p.one.ms, allRssMiB: p.all.rssMiB, coldMs: p.cold.ms, coldOneMs: p.coldOne.ms, coldRssMiB: p.cold.rssMiB };
  const ratio = p.all.ms / p.one.ms;
  pollOk = ratio <= TARGET_POLL && p.all.rssMiB < TARGET_POLL_RSS_MIB;
  console.log(`platform poll: --all-grants over ${p.all.companies} companies ${ratio.toFixed(2)}x one Grant's poll (target <= ${TARGET_POLL}x; first runs ${(p.cold.ms / p.coldOne.ms).toFixed(2)}x), peak RSS ${p.all.rssMiB.toFixed(0)} MiB (target < ${TARGET_POLL_RSS_MIB}) ${pollOk ? 'ok' : 'MISSED'}`);
}

let listenOk = true;
if (PART === 'all' || PART === 'listen') {
  const l = await listen();
  const ratio = l.many / l.one;
  listenOk = ratio >= TARGET_LISTEN;
  console.log(`platform: webhook listen, ${ROUNDS} alternating rounds of ${REQUESTS} deliveries, ${CONNECTIONS} connections`);
  console.log(`  1 subscription                                  ${l.one.toFixed(0).padStart(6)} acks/s`);
  console.log(`  ${SUBSCRIPTIONS} subscriptions, a path of its own each     ${l.many.toFixed(0).padStart(6)} acks/s`);
  console.log(`  ${SUBSCRIPTIONS} subscriptions at one path (every secret tried) ${l.manyOnePath.toFixed(0).padStart(6)} acks/s`);
  console.log(`platform webhook listen: ${SUBSCRIPTIONS} subscriptions ${ratio.toFixed(2)}x one (target >= ${TARGET_LISTEN}x) ${ratio >= TARGET_LISTEN ? 'ok' : 'MISSED'}`);
}
// ---- webhook subscribe across Grants ------------------------------------------------------
if (PART === 'subscribe') {
  const env = baseEnv('subscribe');
  const sandbox = await start([svcBin, 'sandbox', 'start', '--port', '0', '--auto-approve', '--companies', String(GRANTS), ...RATE_LIMIT], env, 'stdout');
  env.SVC_BASE_URL = sandbox.url;
  svc(['sandbox', 'login'], env);
  const ids = JSON.parse(svc(['grants', 'list', '--json'], env).stdout).map((g) => g.grant_id);
  const few = Math.min(250, Math.floor(GRANTS / 4));
  const file = (name, list) => (writeFileSync(join(work, name), list.join('\n')), join(work, name));
  const first = file('first.txt', ids.slice(0, few));
  const last = file('last.txt', ids.slice(-few));
  // Warm tokens of the scope subscribing uses (write): the subscriptions are what is measured.
  svc(['webhook', 'list', '--all-grants', '--json'], env);
  const run = (args, url) => {
    const { ms, stdout, rssMiB } = measured(['webhook', 'subscribe', ...args, '--url', `http://127.0.0.1:9/${url}`, '--json'], env);
    const rows = JSON.parse(stdout);
    return { ms, rssMiB, created: rows.filter((r) => r.reused === false).length, reused: rows.filter((r) => r.reused === true).length };
  };
  const empty = run(['--grants', first], 'a');
  const all = run(['--all-grants', '--own-path'], 'b');
  const full = run(['--grants', last], 'c');
  const again = run(['--all-grants', '--own-path'], 'b');
  await sandbox.stop();
  figures.subscribe = { firstMsPerGrant: all.ms / (all.created + all.reused), firstRssMiB: all.rssMiB, againMsPerGrant: again.ms / (again.created + again.reused), againRssMiB: again.rssMiB };
  const line = (r, what) => `  ${what.padEnd(58)} ${(r.ms / 1000).toFixed(2)} s, ${(r.ms / (r.created + r.reused)).toFixed(2)} ms a Grant (${r.created} created, ${r.reused} reused), peak RSS ${r.rssMiB.toFixed(0)} MiB`;
  console.log(`platform: webhook subscribe, ${GRANTS} Grants, file secret store, warm tokens, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(line(empty, `${few} Grants, none kept before`));
  console.log(line(all, `--all-grants --own-path, first run (${few} kept before)`));
  console.log(line(full, `${few} other Grants, ${few + GRANTS} kept before`));
  console.log(line(again, '--all-grants --own-path again (every one reused)'));
  console.log(`platform subscribe: creating one with ${few + GRANTS} kept ${(full.ms / empty.ms).toFixed(2)}x creating one with none kept`);
}

if (process.env.BENCH_STRICT === '1' && (!tokensOk || !fanOutOk || !pollOk || !listenOk)) process.exitCode = 1;
