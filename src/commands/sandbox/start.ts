// `svc sandbox start`: the local service in the foreground until SIGINT or SIGTERM. Its
// first stdout line is `listening on URL`, which scripts and tests wait for; everything
// else (what to log in with, request lines) goes to stderr. On a fixed port the state is kept
// across restarts (persistence.ts) unless --ephemeral; --state DIR chooses where.
import { join, resolve } from 'node:path';
import { isLoopbackHost } from '../../config/base-url.js';
import { LOCAL_BASE_URL } from '../../config/defaults.js';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { counted } from '../../io/plural.js';
import { note, println } from '../../io/streams.js';
import { bundledFixturePath, loadFixture } from '../../sandbox/fixture.js';
import { withCompanies } from '../../sandbox/platform-companies.js';
import { describeLatency, parseLatency } from '../../sandbox/latency.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.js';
import type { StopSignal } from '../../io/stop-signal.js';
import { parsePort } from '../foreground.js';

export interface StartOptions {
  port: string;
  host: string;
  fixture?: string | undefined;
  autoApprove?: boolean | undefined;
  webhookRetryBaseMs?: string | undefined;
  webhookMaxAttempts?: string | undefined;
  /** Requests a second per client application and company (the burst is twice that). */
  rateLimit?: string | undefined;
  /** Where the state is kept across restarts. */
  state?: string | undefined;
  /** Keep nothing: the state lives and dies with the process. */
  ephemeral?: boolean | undefined;
  /** How many companies the administrator approves for (the fixture's first, then generated ones). */
  companies?: string | undefined;
  /** Hold each answer this long, as a service across a network: `40ms`, `20-60ms`. */
  latency?: string | undefined;
}

/**
 * Where the state is kept: --state DIR; else, on a fixed port, a directory of that port
 * under the state directory (a sandbox you come back to at the same URL); on --port 0 (a
 * fresh URL each time: tests, CI) or with --ephemeral, nowhere.
 */
export function stateDirOf(opts: Pick<StartOptions, 'state' | 'ephemeral'>, port: number, f: Factory): string | undefined {
  if (opts.state !== undefined && opts.ephemeral) throw new UsageError('--state and --ephemeral exclude each other');
  if (opts.ephemeral) return undefined;
  if (opts.state !== undefined) {
    if (opts.state.trim() === '') throw new UsageError('--state: give a directory');
    return resolve(opts.state);
  }
  return port === 0 ? undefined : join(f.paths.stateDir, 'sandbox', `port-${port}`);
}

export async function run(opts: StartOptions, f: Factory, listenForStop: () => StopSignal = f.stopSignal): Promise<void> {
  const port = parsePort(opts.port);
  const host = parseHost(opts.host);
  const fixture = opts.fixture === undefined ? bundledFixturePath() : resolve(opts.fixture);
  const companies = opts.companies === undefined ? undefined : parseWhole(opts.companies, '--companies', 1);
  const webhooks = {
    ...(opts.webhookRetryBaseMs === undefined ? {} : { baseDelayMs: parseWhole(opts.webhookRetryBaseMs, '--webhook-retry-base-ms', 0) }),
    ...(opts.webhookMaxAttempts === undefined ? {} : { maxAttempts: parseWhole(opts.webhookMaxAttempts, '--webhook-max-attempts', 1) }),
  };
  const perSecond = opts.rateLimit === undefined ? undefined : parseWhole(opts.rateLimit, '--rate-limit', 1);
  const rateLimit = perSecond === undefined ? {} : { rateLimit: { capacity: perSecond * 2, refillPerSecond: perSecond } };
  const latency = opts.latency === undefined ? undefined : parseLatency(opts.latency);
  const stateDir = stateDirOf(opts, port, f);
  // Listening first, so that a signal sent the moment the URL is printed is not missed.
  const stop = listenForStop();
  let sandbox: RunningSandbox;
  try {
    sandbox = await startSandbox({
      port,
      host,
      fixture: companies === undefined ? fixture : withCompanies(await loadFixture(fixture), companies),
      autoApprove: opts.autoApprove ?? false,
      webhooks,
      ...rateLimit,
      ...(latency === undefined ? {} : { latency }),
      ...(stateDir === undefined ? {} : { stateDir }),
      checkContract: f.env.SVC_SANDBOX_CHECK_CONTRACT === '1',
      log: (line) => note(f.io, line),
    });
  } catch (error) {
    stop.dispose();
    throw error;
  }
  println(f.io, `listening on ${sandbox.url}`);
  const kept = sandbox.persistence;
  note(
    f.io,
    kept === undefined
      ? 'state: in memory only (gone when it stops; --state DIR keeps it)'
      : kept.restored
        ? `state: restored from ${kept.dir} (kept since ${kept.since})`
        : `state: kept in ${kept.dir} (--ephemeral keeps nothing)`,
  );
  // Elsewhere than the local profile's address, svc would talk to whatever answers there.
  if (sandbox.url !== LOCAL_BASE_URL) {
    note(f.io, `export SVC_BASE_URL=${sandbox.url}    # in the shell where you run svc: this sandbox is not at ${LOCAL_BASE_URL}`);
  }
  if (latency !== undefined && latency.maxMs > 0) note(f.io, `latency: each answer held ${describeLatency(latency)}, as a service across a network`);
  describeLogin(f, sandbox, fixture);
  const signal = await stop.stopped;
  note(f.io, `${signal}: stopping the sandbox`);
  await sandbox.close();
}

function parseWhole(value: string, flag: string, min: number): number {
  const n = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= min)) throw new UsageError(`${flag}: "${value}" is not a whole number from ${min}`);
  return n;
}

function parseHost(host: string): string {
  if (!isLoopbackHost(host)) {
    throw new UsageError(`--host: ${host} is not a loopback address; the sandbox only serves this machine`, {
      hint: 'use 127.0.0.1, ::1 or localhost',
    });
  }
  return host.replace(/^\[(.*)\]$/, '$1');
}

function describeLogin(f: Factory, sandbox: RunningSandbox, fixturePath: string): void {
  const apps = sandbox.state.fixture.clientApplications;
  const index = apps.findIndex((a) => a.status === 'Approved');
  const app = apps[index];
  if (!app) {
    note(f.io, `the fixture ${fixturePath} has no Approved client application to log in with`);
  } else {
    note(
      f.io,
      [
        `client id      ${app.id} (${app.name})`,
        `redirect URI   ${app.redirectUris[0] ?? '(none)'}`,
        `client secret  clientApplications[${index}].clientSecret in ${fixturePath}`,
        `companies      ${counted(sandbox.state.users.values().next().value?.companyIds.length ?? 0, 'company', 'companies')} approve it`,
      ].join('\n'),
      // Terms and their values: a value wrapped continues under the values above it.
      { columns: true },
    );
  }
  note(f.io, 'press Ctrl-C to stop');
}
