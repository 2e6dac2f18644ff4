// The local service: one node:http server, the route groups of every interface part, and
// the state seeded from a fixture. Used by `svc sandbox start`, by `svc demo` and by tests
// in-process; nothing here reads process state or exits.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../clock.js';
import { bindError } from '../net/bind-error.js';
import { VERSION } from '../version.js';
import { createSandboxClock, type SandboxClock } from './clock.js';
import type { RouteGroup, Sandbox } from './context.js';
import { bundledFixturePath, loadFixture, type Fixture } from './fixture.js';
import { createRouter } from './router.js';
import * as health from './routes/health.js';
import * as clientApplications from './routes/client-applications.js';
import * as oauthAuthorize from './routes/oauth-authorize.js';
import * as oauth from './routes/oauth.js';
import * as sandboxGrants from './routes/sandbox-grants.js';
import { withRateLimit, type RateLimitOptions } from './rate-limit.js';
import * as outage from './outage.js';
import * as email from './routes/email.js';
import * as receipts from './routes/receipts.js';
import * as recipients from './routes/recipients.js';
import * as templates from './routes/templates.js';
import * as creditNotes from './routes/credit-notes.js';
import * as events from './routes/events.js';
import * as returns from './routes/returns.js';
import * as webhooks from './routes/webhooks.js';
import * as openapi from './routes/openapi.js';
import { checkReply } from './contract-check.js';
import { drawDelay, type Latency } from './latency.js';
import { openPersistence, type Persistence } from './persistence.js';
import { createSandboxState, type SandboxState } from './state.js';
import { startWebhookDelivery, type WebhookDeliveryOptions } from './webhooks.js';

/** One module per interface part; later parts (OAuth, receipts, credit notes, webhooks) join here. */
const ROUTE_GROUPS: readonly RouteGroup[] = [health, oauthAuthorize, oauth, clientApplications, sandboxGrants, recipients, templates, receipts, email, webhooks, returns, creditNotes, events, openapi, outage];

// How long `close()` lets requests in progress finish before their connections are cut.
const CLOSE_GRACE_MS = 1000;

export interface SandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** A fixture file, or one already loaded; default: the bundled fixtures/sandbox.json. */
  fixture?: string | Fixture;
  /** The base clock the sandbox clock advances over (tests pass a fixed one). */
  clock?: Clock;
  autoApprove?: boolean;
  /** Per client application and company (per Grant, or API-key company); default 100 requests of burst, refilled at 50/s. */
  rateLimit?: RateLimitOptions;
  /** Retry schedule and timeout of webhook deliveries; tests shrink them to milliseconds. */
  webhooks?: WebhookDeliveryOptions;
  /** Request lines and internal errors; silent by default. */
  log?: (line: string) => void;
  /** Check every answer against the interface's schemas (the end-to-end tests' mode). */
  checkContract?: boolean;
  /**
   * Keep the state in this directory across restarts (persistence.ts); without it the
   * state lives and dies with the process.
   */
  stateDir?: string;
  /** Hold each answer this long (or a time drawn from the range): a service across a network. */
  latency?: Latency;
}

export interface RunningSandbox {
  /** e.g. http://127.0.0.1:8787, without a trailing slash. */
  readonly url: string;
  readonly port: number;
  readonly state: SandboxState;
  readonly clock: SandboxClock;
  /** What route groups see; tests use it to call sandbox internals such as `recordEvent`. */
  readonly context: Sandbox;
  /** The kept state (`stateDir`), or undefined. */
  readonly persistence: Persistence | undefined;
  /** Stops listening and closes every connection; safe to call more than once. */
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = options.host ?? '127.0.0.1';
  const fixture =
    typeof options.fixture === 'object' ? options.fixture : await loadFixture(options.fixture ?? bundledFixturePath());
  const clock = createSandboxClock(options.clock);
  const state = createSandboxState(fixture);
  const log = options.log ?? (() => {});
  const startedAt = clock.iso();
  const persistence = options.stateDir === undefined ? undefined : await openPersistence(options.stateDir, { state, clock, fixture, log });
  const sandbox: Sandbox = {
    state,
    clock,
    autoApprove: options.autoApprove ?? false,
    version: VERSION,
    startedAt,
    stateSince: () => persistence?.since ?? startedAt,
    persistent: persistence !== undefined,
    log,
    reset() {
      state.reset();
      clock.reset();
      persistence?.markReset(clock.iso());
    },
  };

  // Background work, stopped by close() before the server so that nothing outlives it.
  const stops: (() => Promise<void>)[] = [startWebhookDelivery(sandbox, options.webhooks).stop];

  const latency = options.latency;
  // An outage is checked before the rate limit: an answer that is a 503 draws no token.
  const routes = createRouter({
    clock,
    log,
    ...(options.checkContract ? { checkReply: (method, pattern, reply) => checkReply(method, pattern, reply, log) } : {}),
    ...(latency && latency.maxMs > 0 ? { delay: () => drawDelay(latency) } : {}),
    ...(persistence ? { beforeReply: (method, path) => (changesNothing(method, path) ? Promise.resolve() : persistence.save()) } : {}),
  });
  const router = withRateLimit(outage.withOutage(routes, sandbox), sandbox, options.rateLimit);
  for (const group of ROUTE_GROUPS) group.register(router, sandbox);
  const server = createServer();
  router.attach(server);
  try {
    await listen(server, options.port ?? 0, host);
  } catch (error) {
    await Promise.allSettled(stops.map((stop) => stop()));
    await persistence?.close();
    throw error;
  }

  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  const shutdown = () =>
    new Promise<void>((resolve, reject) => {
      const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
      server.close((error) => {
        clearTimeout(force);
        if (error) reject(error);
        else resolve();
      });
      // Keep-alive connections of clients that are done would otherwise hold close() open.
      server.closeIdleConnections();
    });
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    state,
    clock,
    context: sandbox,
    persistence,
    close: () =>
      (closing ??= Promise.allSettled(stops.map((stop) => stop()))
        .then(shutdown)
        .finally(() => persistence?.close())),
  };
}

/** Reads that change no state: answered without a save. */
function changesNothing(method: string, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && (path === '/sandbox/health' || path === '/openapi.json' || path.startsWith('/sandbox/outbox'));
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(bindError(error, host, port, { port: '--port', host: '--host' }));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

