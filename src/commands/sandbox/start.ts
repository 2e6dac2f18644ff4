// `svc sandbox start`: the local service in the foreground until SIGINT or SIGTERM. Its
// first stdout line is `listening on URL`, which scripts and tests wait for; everything
// else (what to log in with, request lines) goes to stderr.
import { resolve } from 'node:path';
import { isLoopbackHost } from '../../config/base-url.js';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { note, println } from '../../io/streams.js';
import { bundledFixturePath } from '../../sandbox/fixture.js';
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
  /** Requests a second per client (the burst is twice that). */
  rateLimit?: string | undefined;
}

export async function run(opts: StartOptions, f: Factory, listenForStop: () => StopSignal = f.stopSignal): Promise<void> {
  const port = parsePort(opts.port);
  const host = parseHost(opts.host);
  const fixture = opts.fixture === undefined ? bundledFixturePath() : resolve(opts.fixture);
  const webhooks = {
    ...(opts.webhookRetryBaseMs === undefined ? {} : { baseDelayMs: parseWhole(opts.webhookRetryBaseMs, '--webhook-retry-base-ms', 0) }),
    ...(opts.webhookMaxAttempts === undefined ? {} : { maxAttempts: parseWhole(opts.webhookMaxAttempts, '--webhook-max-attempts', 1) }),
  };
  const perSecond = opts.rateLimit === undefined ? undefined : parseWhole(opts.rateLimit, '--rate-limit', 1);
  const rateLimit = perSecond === undefined ? {} : { rateLimit: { capacity: perSecond * 2, refillPerSecond: perSecond } };
  // Listening first, so that a signal sent the moment the URL is printed is not missed.
  const stop = listenForStop();
  let sandbox: RunningSandbox;
  try {
    sandbox = await startSandbox({ port, host, fixture, autoApprove: opts.autoApprove ?? false, webhooks, ...rateLimit, checkContract: f.env.SVC_SANDBOX_CHECK_CONTRACT === '1', log: (line) => note(f.io, line) });
  } catch (error) {
    stop.dispose();
    throw error;
  }
  println(f.io, `listening on ${sandbox.url}`);
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
  return host;
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
      ].join('\n'),
    );
  }
  note(f.io, 'press Ctrl-C to stop');
}
