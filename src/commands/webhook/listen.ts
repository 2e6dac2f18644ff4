// `svc webhook listen`: a local receiver in the foreground until SIGINT or SIGTERM. It
// verifies, journals (fsync before the 2xx) and then decrypts each delivery, reading the
// keys again for a key generated since it started; see src/webhook/. Output: the line
// `listening on http://HOST:PORT/PATH` on stderr once deliveries are accepted (scripts and
// tests wait for it; with --json stdout carries only events), then one `--> EVENT ...` line
// per event on stderr, and with --json one docs/interface-decisions.md#webhook-listen-lines event object per line on stdout.
import { hostname } from 'node:os';
import { KNOWN_WEBHOOK_EVENTS } from '../../contract/webhook.js';
import { loadKeyring } from '../../keys/keystore.js';
import { howToGetAKey } from '../../keys/registered.js';
import { ExitCode, ReportedError, UsageError, exitCodeOf } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { jsonText } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { resolveProfileName } from '../../config/settings.js';
import type { StopOptions, StopSignal } from '../../io/stop-signal.js';
import { parsePort } from '../foreground.js';
import { fansOut, NotRunError } from '../../grants/fan-out.js';
import { createDecryptor } from '../../webhook/decryptor.js';
import { createRoutingForwarder, parseRoutes } from '../../webhook/routes.js';
import { adoptStderr, createListenLog, parseLogFormat, type ListenLog } from '../../webhook/log.js';
import { parseDrainTimeout, quitOnSecondSignal, within } from '../../webhook/drain.js';
import { createReadiness } from '../../webhook/readiness.js';
import { NO_METRICS, refusalOutcome, statusClassOf, type ListenerMetrics } from '../../webhook/listener-events.js';
import type { RunningAdmin } from '../../webhook/admin.js';
import { bodyId } from '../../crypto/hash.js';
import { companyIdOfBody } from '../../webhook/company.js';
import { databaseUrlOf } from '../../config/profile-dir.js';
import { isLoopbackHost } from '../../config/base-url.js';
import { claimJournal } from '../../webhook/journal-claim.js';
import { CATCH_UP_BATCH, DEFAULT_CLAIM_SECONDS, openSharedJournal, type SharedJournal } from '../../webhook/pg-journal.js';
import { openJournal } from '../../webhook/journal.js';
import { watchKeyring } from '../../webhook/keyring.js';
import { createProcessor, shortId, writeEvent, type Processor } from '../../webhook/processor.js';
import { companyNames, requestIdFinder } from '../../webhook/event-context.js';
import { startReceiver, type Rejection, type RunningReceiver } from '../../webhook/receiver.js';
import { deliveryPathOf, environmentSecretAdvice, isOwnPathUnder, journalPathOf, listedSubscriptionFor, readLocalSubscriptions, storedSubscriptionFor, subscribe, subscribeOnce, watchSecrets, type SecretSet } from '../../webhook/subscriptions.js';
import { envVariableFor } from '../../secrets/env.js';
import { turnBatch } from '../../io/turn-batch.js';
import type { WebhookSubscription, WebhookSubscriptionRequest } from '../../contract/webhook.js';

/** How long aborted forwards get to end (at once, as a rule) once the drain ran out of time. */
const ABORTED_FORWARDS_MS = 500;

export interface ListenOptions {
  port: string;
  host: string;
  /** Needed to bind every interface (0.0.0.0, ::). */
  public?: boolean | undefined;
  path: string;
  /** `[EVENTS=]URL`, each: see src/webhook/routes.ts. */
  forwardTo?: string | readonly string[] | undefined;
  /** Serve /healthz, /readyz and /metrics on this port. */
  adminPort?: string | undefined;
  adminHost?: string | undefined;
  logFormat?: string | undefined;
  drainTimeout?: string | undefined;
  subscribe?: boolean | undefined;
  /** With --subscribe: print the subscription's signing secret (needed when no secret store keeps it). */
  showSecret?: boolean | undefined;
  /** With --subscribe: every company (or those of a file), each on a path of its own. */
  allGrants?: boolean | undefined;
  grants?: string | undefined;
  concurrency?: string | undefined;
}


export async function run(given: ListenOptions, factory: Factory, listenForStop: (opts?: StopOptions) => StopSignal = factory.stopSignal): Promise<void> {
  const log = createListenLog(factory.io, parseLogFormat(given.logFormat), factory.clock);
  adoptStderr(factory.io, log);
  try {
    await serve(given, factory, listenForStop, log);
  } catch (error) {
    // Under --log-format json the failure is a log line too (level error), not text after them.
    if (log.format !== 'json') throw error;
    log.failed(error);
    throw new ReportedError(error);
  }
}

async function serve(given: ListenOptions, factory: Factory, listenForStop: (opts?: StopOptions) => StopSignal, log: ListenLog): Promise<void> {
  // An IPv6 address as URLs write it ([::1]) is the address to bind.
  const opts = { ...given, host: given.host.replace(/^\[(.*)\]$/, '$1') };
  const port = parsePort(opts.port);
  const path = parsePath(opts.path);
  // Every note below goes through the log's streams: JSON lines under --log-format json.
  const f: Factory = Object.create(factory, { io: { value: log.io } }) as Factory;
  const adminPort = opts.adminPort === undefined ? undefined : parsePort(opts.adminPort, '--admin-port');
  const adminHost = (opts.adminHost ?? '127.0.0.1').replace(/^\[(.*)\]$/, '$1');
  if (adminPort !== undefined && adminPort !== 0 && adminPort === port) throw new UsageError(`--admin-port ${adminPort} is the delivery port`, { hint: 'give the admin endpoints a port of their own' });
  const drainMs = parseDrainTimeout(opts.drainTimeout);
  const exposed = checkExposure(opts.host, Boolean(opts.public));
  const routes = parseRoutes(opts.forwardTo === undefined ? [] : typeof opts.forwardTo === 'string' ? [opts.forwardTo] : opts.forwardTo);
  const profile = resolveProfileName(f.globals, f.env).value;

  if (opts.showSecret && !opts.subscribe) throw new UsageError('--show-secret goes with --subscribe', { hint: 'add --subscribe, or leave out --show-secret' });
  const everyCompany = fansOut(opts);
  if (everyCompany && !opts.subscribe) throw new UsageError('--all-grants and --grants go with --subscribe: a listener takes every company\'s deliveries anyway', { hint: 'add --subscribe to subscribe each company on a path of its own' });
  if (everyCompany && opts.showSecret) throw new UsageError('--show-secret prints one secret; over several companies each is kept in the secret store', { hint: 'subscribe one company with --grant to see its secret' });
  // The service shows a new subscription's secret once (docs/interface-decisions.md#subscription-secrets): with no secret store it
  // is kept only by the person, so this is refused before anything is bound or created.
  const nowhereToKeep = Boolean(opts.subscribe) && (await f.secrets()).backend === 'env';
  const handedIn = envVariableFor(f.env, 'webhook-secret') !== undefined;
  if (nowhereToKeep && everyCompany) throw noSecretStoreError('the signing secrets of the companies\' subscriptions could be kept nowhere');
  if (nowhereToKeep && !opts.showSecret && !handedIn) throw noSecretStoreError('the new subscription\'s signing secret could be kept nowhere and would be lost when this listener stops');
  const secrets = await watchSecrets(f);
  if (secrets.current().length === 0 && !opts.subscribe) {
    throw new UsageError(`profile "${profile}" knows no webhook signing secret, so no delivery could be verified`, {
      hint: 'create a subscription with `svc webhook subscribe --url URL` or `svc webhook listen --subscribe`, or set SVC_WEBHOOK_SECRET',
    });
  }
  await warnAboutKeys(f);

  // Listening first, so that a signal sent the moment the URL is printed is not missed.
  // SIGHUP drains too: a service's terminal gone, or a supervisor's reload, is no reason to die mid-delivery.
  const stop = listenForStop({ hangup: true });
  // A team's listeners share the database's journal; one on its own keeps this profile's file, alone.
  const databaseUrl = await databaseUrlOf(f);
  const claim = databaseUrl === undefined ? await claimJournal(journalPathOf(f)).catch((error: unknown) => {
    stop.dispose();
    throw error;
  }) : undefined;
  const shared = databaseUrl === undefined ? undefined : await openSharedJournal(databaseUrl, { clock: f.clock, env: f.env, claimSeconds: claimSecondsOf(f), note: (text) => note(f.io, text) }).catch((error: unknown) => {
    stop.dispose();
    throw error;
  });
  const journal = shared ?? await openJournal(journalPathOf(f), { clock: f.clock }).catch(async (error: unknown) => {
    await claim?.release();
    stop.dispose();
    throw error;
  });
  const keyring = watchKeyring(f);
  const decryptor = await createDecryptor(keyring.current, { reloadFor: keyring.reloadFor });
  const rejections = rejectionReporter(f, log);
  let receiver: RunningReceiver | undefined;
  let sweeper: { stop(): void } | undefined;
  const readiness = createReadiness({ secrets: () => secrets.current().length, ping: shared && (() => shared.ping()) });
  let metrics: ListenerMetrics = NO_METRICS;
  let admin: RunningAdmin | undefined;
  // Set when the drain ran out of time: what is being processed then is left unmarked, for the next start.
  let abandoned = false;
  // Set once `listening` is logged.
  let listened = false;
  // Until `listening`, the delivery port answers 503 (the sender retries): no delivery is taken
  // before the log says the listener is listening. Counted, to say so then.
  let starting = true;
  let turnedAway = 0;
  // --all-grants with subscriptions stored here: their check with the service, under way while listening.
  let checking: Promise<void> | undefined;
  // Set as `stopped` is logged: it is the last line, whatever an aborted forward still says.
  let over = false;
  const forwarder = routes.length > 0 ? createRoutingForwarder(routes) : undefined;
  // Event lines go out once a turn during a burst, not a system call each (src/io/turn-batch.ts).
  // The log's own stream, not the stderr it lends under --log-format json: that one passes
  // each line on at once, so notes and log objects keep the order they were written in.
  const lines = turnBatch([f.io.stdout, log.stream]);
  const processor = createProcessor({
    decryptor,
    markProcessed: (id, outcome) => (abandoned ? Promise.resolve() : journal.markProcessed(id, outcome)),
    forward: forwarder && (async (delivery) => {
      // Whose delivery a failed forward was, as the envelope names it: one of many companies.
      const companyId = companyIdOfBody(delivery.raw);
      // Each target counted and logged as it is done, not once the slowest is.
      const outcomes = await forwarder.forward(delivery, {
        attempt: (target, result) => metrics.forwardAttempt(target, statusClassOf(result.status)),
        done: ({ target, result, attempts }) => {
          if (over) return;
          metrics.forwarded(target, statusClassOf(result.status));
          if (result.status === undefined || result.status >= 300) log.forwardFailed({ deliveryId: delivery.entry.id, event: delivery.entry.event, companyId, target, attempts, detail: result.text });
        },
      });
      if (over) return { text: '', failed: [] };
      // A forward that failed every attempt is not tried again (the delivery is processed): said
      // so, with the command that sends it again from this machine's journal, and journalled
      // with the outcome, so that `svc webhook events` says it too.
      const tookIt = (result: { status?: number | undefined }) => result.status !== undefined && result.status < 300;
      const attemptsText = (attempts: number) => `${attempts} attempt${attempts === 1 ? '' : 's'}`;
      const failedAfter = (result: { status?: number | undefined; aborted?: true }, attempts: number, target: string) =>
        tookIt(result) || result.aborted ? '' : ` (${attemptsText(attempts)}${shared ? '' : `; \`svc webhook replay ${shortId(delivery.entry.id)} --forward-to ${target}\` sends it again`})`;
      return {
        // Each target with what happened: "forwarded to" only for one that took it.
        text:
          outcomes.length === 0
            ? 'forwarded nowhere: no target for this event'
            : outcomes.map(({ target, result, attempts }) => `${tookIt(result) ? 'forwarded' : 'not forwarded'} to ${target}: ${result.text}${failedAfter(result, attempts, target)}`).join(', '),
        failed: outcomes.filter(({ result }) => !tookIt(result) && !result.aborted).map(({ target, result, attempts }) => `${target}: ${result.text} (${attemptsText(attempts)})`),
      };
    }),
    report: (processed) => {
      lines.hold();
      if (!processed.report.duplicate) metrics.processed(processed.report.event, processed.report.error === undefined);
      if (log.format === 'json') {
        log.processed(processed);
        if (f.io.json) f.io.stdout.write(`${jsonText(processed.report)}\n`);
      } else writeEvent(f.io, processed);
      // Journalled as processed once its lines are out (src/webhook/processor.ts).
      return lines.written();
    },
    warn: (text) => note(f.io, text),
    busy: () => receiver?.busy() ?? false,
    requestIdOf: requestIdFinder(f, profile),
    admit: shared && ((delivery) => shared.admit(delivery.entry.id)),
    companyName: await companyNames(f, profile),
  });
  const shutDown = async (deadline = Number.POSITIVE_INFINITY) => {
    let left = 0;
    const stopped = processor.stop().then((n) => void (left = n));
    if (!(await within(stopped, Math.max(0, deadline - performance.now())))) {
      abandoned = true;
      left = processor.waiting();
      processor.abandon();
      note(f.io, `warning: the drain ran out of time (--drain-timeout); the deliveries still being processed or forwarded stay journalled for the next start`);
      // Their forwards end now, not at the app's timeout (the process would wait for them),
      // each with a `forward failed` line before `stopped`.
      forwarder?.abort();
      await within(stopped, ABORTED_FORWARDS_MS);
    }
    await decryptor.close();
    sweeper?.stop();
    await journal.close();
    await claim?.release();
    await forwarder?.close();
    stop.dispose();
    if (left > 0) note(f.io, `${left} journalled deliver${left === 1 ? 'y is' : 'ies are'} left for the next start`);
    lines.flush();
  };

  try {
    if (adminPort !== undefined) {
      // Loaded only here: a listener without --admin-port never loads prom-client.
      const [{ createMetrics }, { startAdmin }] = await Promise.all([import('../../webhook/metrics.js'), import('../../webhook/admin.js')]);
      // The team journal's count: a delivery no listener is processing shows there, not in any one's queue.
      let lastBacklog = 0;
      const backlog = shared ? () => shared.unprocessed().then((n) => (lastBacklog = n), () => lastBacklog) : () => processor.waiting();
      const registry = createMetrics({ backlog });
      metrics = registry;
      admin = await startAdmin({ host: adminHost, port: adminPort, readiness: () => readiness.check(), metrics: registry });
    }
    receiver = await startReceiver({
      host: opts.host,
      port,
      path,
      journal,
      // A delivery to a path of its own is checked against that subscription's secret only.
      secrets: (deliveredTo) => secrets.forPath(deliveredTo) ?? secrets.current(),
      refreshSecrets: () => secrets.refresh(),
      noMatchAdvice: environmentSecretAdvice(f),
      clock: f.clock,
      onDelivery: (delivery, duplicate, ackSeconds, companyId) => {
        readiness.journalWritten();
        metrics.delivery(duplicate ? 'duplicate' : 'accepted', ackSeconds);
        log.delivery(duplicate ? 'duplicate' : 'accepted', { deliveryId: delivery.entry.id, event: delivery.entry.event, companyId, status: 200 });
        processor.enqueue(delivery, duplicate);
      },
      onRejected: (rejection) => {
        metrics.delivery(refusalOutcome(rejection));
        rejections.report(rejection);
      },
      starting: () => starting,
      onStarting: () => {
        turnedAway += 1;
        metrics.delivery('unavailable');
      },
      onJournalError: (error, raw, companyId) => {
        readiness.journalFailed(error);
        metrics.delivery('unavailable');
        log.delivery('unavailable', { deliveryId: bodyId(raw), companyId, status: 503, reason: 'the delivery could not be journalled' });
        note(f.io, `warning: a delivery could not be journalled (${error instanceof Error ? error.message : String(error)}); answered 503 so that it is sent again`);
      },
    });
    // Said once both are bound: a line about a server that may never serve would not be true.
    if (exposed) note(f.io, `warning: listening on ${opts.host}: reachable from other machines on that network, not only from this one`);
    // Under --log-format json with the address as a field: `--admin-port 0` picks one a supervisor reads back.
    if (admin) log.lifecycle('admin', `admin endpoints on ${admin.url} (/healthz, /readyz, /metrics)`, { url: admin.url });
  } catch (error) {
    await shutDown();
    await admin?.close();
    throw error;
  }

  try {
    let background: Background | undefined;
    if (opts.subscribe) {
      const request = { name: `svc webhook listen on ${hostname()}`, notificationUrl: notificationUrlOf(receiver.url, opts.host), events: [...KNOWN_WEBHOOK_EVENTS] };
      if (everyCompany) background = await subscribeEveryCompany(f, request, opts, secrets, log, () => over);
      else if (nowhereToKeep) await subscribeWithoutStore(f, request, secrets, { showSecret: Boolean(opts.showSecret), handedIn });
      else {
        let stored: Awaited<ReturnType<typeof storedSubscriptionFor>>;
        const outcome = await subscribeOnce(f, request).catch(async (error: unknown) => {
          // The service down (a restart, an outage) while this machine holds the subscription
          // and its secret: a listener under a supervisor starts and verifies with it, rather
          // than exiting 8 and being restarted until the service is back.
          if (exitCodeOf(error) !== ExitCode.unavailable) throw error;
          stored = await storedSubscriptionFor(f, request);
          if (stored === undefined) throw error;
          note(f.io, `warning: could not check subscription ${stored.id} with the service (${error instanceof Error ? error.message : String(error)}); listening with the secret stored for it — run with --subscribe again once the service answers, to check it is still subscribed`);
          return undefined;
        });
        if (outcome === undefined) secrets.add(stored!.secret, deliveryPathOf(stored!.notificationUrl));
        else {
          const { subscription, reused, forgotten } = outcome;
          secrets.add(subscription.secret, deliveryPathOf(subscription.notificationUrl));
          if (forgotten.length > 0) note(f.io, `forgot ${forgotten.length} subscription${forgotten.length === 1 ? '' : 's'} the service no longer has`);
          // Under --log-format json with its parts as fields, as `listening` has its url.
          log.lifecycle('subscribed', `${reused ? 'reusing subscription' : 'subscribed'} ${subscription.id} to ${subscription.events.join(', ')} at ${request.notificationUrl}`, {
            subscriptionId: subscription.id,
            reused,
            events: subscription.events,
            url: request.notificationUrl,
          });
          if (opts.showSecret) printSecret(f, subscription);
        }
      }
    }
    await claim?.describe({ address: receiver.url });
    // From here deliveries are taken, and /readyz may answer 200: each said as it becomes true.
    starting = false;
    readiness.bound();
    log.lifecycle(
      'listening',
      background === undefined
        ? `listening on ${receiver.url}`
        : `listening on ${receiver.url} with the ${background.stored} subscriptions stored on this machine while it checks them with the service in the background`,
      { url: receiver.url, ...(background && { stored: background.stored, checking: true }) },
    );
    listened = true;
    if (turnedAway > 0) note(f.io, `answered ${turnedAway} deliver${turnedAway === 1 ? 'y' : 'ies'} 503 while starting (before listening); the sender retries them`);
    if (admin) {
      const notReady = await readiness.check();
      const readyz = `${admin.url}/readyz`;
      log.lifecycle('ready', notReady.length === 0 ? `ready: ${readyz} answers 200` : `not ready: ${notReady.map((r) => r.detail).join('; ')} (${readyz} answers 503)`, { ready: notReady.length === 0, url: readyz });
    }
    checking = background?.check();
    const backlog = journal.takeUnprocessed();
    if (backlog.length > 0) note(f.io, `processing ${backlog.length} journalled deliver${backlog.length === 1 ? 'y' : 'ies'} the last run left unprocessed`);
    for (const delivery of backlog) processor.enqueue(delivery, false);
    if (shared) sweeper = catchUp(f, shared, processor);
    const signal = await stop.stopped;
    readiness.draining();
    log.lifecycle('draining', `${signal}: finishing the deliveries in progress`, { signal, drainTimeoutSeconds: drainMs / 1000 });
    rejections.summarize();
  } finally {
    const deadline = performance.now() + drainMs;
    const quit = quitOnSecondSignal((signal) => {
      // process.exit() follows: what this turn held is written first.
      lines.flush();
      // What is not journalled processed yet stays journalled: said, as the drain's timeout says it.
      const left = processor.waiting();
      const leftText = left > 0 ? `; ${left} journalled deliver${left === 1 ? 'y is' : 'ies are'} left for the next start` : '';
      log.lifecycle('stopped', `${signal} again: stopping at once, without finishing the drain${leftText}`, { signal, drained: false, left });
    });
    try {
      await within(receiver.close(), drainMs);
      // The companies' check with the service ends (the fan-out starts no other Grant once signalled) within the drain.
      if (checking) await within(checking, Math.max(0, deadline - performance.now()));
      await shutDown(deadline);
      over = true;
      // A listener that never listened (its subscription failed) did not stop: its error says what happened.
      if (listened) log.lifecycle('stopped', 'stopped', { drained: !abandoned });
    } finally {
      await admin?.close();
      quit.dispose();
    }
  }
}

/**
 * What a listener that died had claimed comes back once its lease ran out: taken over in
 * batches, the next one as soon as this listener has processed most of the last (a backlog
 * is caught up as fast as it is processed), else looked for every half lease.
 */
function catchUp(f: Factory, shared: SharedJournal, processor: Processor): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const next = (ms: number) => {
    if (!stopped) timer = setTimeout(sweep, ms);
  };
  const sweep = () => {
    if (processor.waiting() >= CATCH_UP_BATCH / 2) return next(100);
    shared.claimAbandoned().then(
      (taken) => {
        if (taken.length > 0) note(f.io, `taking over ${taken.length} deliver${taken.length === 1 ? 'y' : 'ies'} another listener left unprocessed`);
        for (const delivery of taken) processor.enqueue(delivery, false);
        next(taken.length === CATCH_UP_BATCH ? 100 : Math.max(500, (shared.claimSeconds * 1000) / 2));
      },
      () => next(Math.max(500, (shared.claimSeconds * 1000) / 2)),
    );
  };
  // At once: what the journal held at start may be more than one batch.
  next(100);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** The companies' subscriptions checked with the service while the listener listens with those stored here. */
interface Background {
  /** Subscriptions stored on this machine for the listener's URL, with their secrets. */
  stored: number;
  check(): Promise<void>;
}

/**
 * `--subscribe --all-grants`: each company's subscription on a path of its own under this
 * listener's URL, reusing those the service still lists (as `webhook subscribe --all-grants
 * --own-path`); their secrets are learnt as they come. With none stored here for this URL it is
 * done before listening (a company that failed is named; none subscribed is an error). With
 * some stored, the listener listens with them at once and this runs in the background
 * (returned): over thousands of companies, or while the service is down, it can take minutes.
 * A company it could not check keeps its stored subscription, said once as a warning.
 */
async function subscribeEveryCompany(f: Factory, request: WebhookSubscriptionRequest, flags: ListenOptions, secrets: SecretSet, log: ListenLog, over: () => boolean): Promise<Background | undefined> {
  const [{ subscribeEach }, { reportFailures, failIfAllFailed }] = await Promise.all([import('./fan-out.js'), import('../../grants/report.js')]);
  const stored = (await readLocalSubscriptions(f)).filter((s) => {
    const at = deliveryPathOf(s.notificationUrl);
    return isOwnPathUnder(s.notificationUrl, request.notificationUrl) && at !== undefined && secrets.forPath(at) !== undefined;
  });
  const storedGrants = new Set(stored.map((s) => s.grantId));
  const run = async (background: boolean) => {
    const { targets, result } = await subscribeEach(request, { ...flags, ownPath: true }, f);
    for (const { value } of result.ok) secrets.add(value.subscription.secret, deliveryPathOf(value.subscription.notificationUrl));
    if (over()) return;
    // Those whose subscription is stored here are still listened for: not checked, rather than failed.
    const unchecked = result.failed.filter((x) => storedGrants.has(x.target.id) && !(x.error instanceof NotRunError));
    const failed = result.failed.filter((x) => !unchecked.includes(x));
    if (!background) failIfAllFailed(f, failed, targets.length, 'subscribed');
    reportFailures(f, failed, { total: targets.length });
    if (unchecked.length > 0) note(f.io, `warning: ${uncheckedText(unchecked)}`);
    const reused = result.ok.filter((r) => r.value.reused).length;
    const created = result.ok.length - reused;
    const of = (n: number) => `${n} compan${n === 1 ? 'y' : 'ies'}`;
    const text =
      unchecked.length === 0 && failed.length === 0
        ? `subscribed ${of(result.ok.length)} (${created} created, ${reused} reused), each at a path of its own under ${request.notificationUrl}`
        : `subscribed ${result.ok.length} of ${of(targets.length)} (${created} created, ${reused} reused)${unchecked.length > 0 ? `; ${unchecked.length} not checked with the service, listened for with the subscriptions stored here` : ''}${failed.length > 0 ? `; ${failed.length} not subscribed` : ''}; each at a path of its own under ${request.notificationUrl}`;
    // Under --log-format json the counts are fields, as the single Grant's `subscribed` has its parts.
    log.lifecycle('subscribed', text, {
      companies: targets.length,
      created,
      reused,
      unchecked: unchecked.length,
      failed: failed.length,
      url: request.notificationUrl,
      path: `${new URL(request.notificationUrl).pathname}/g<24 hex digits of the Grant ID's SHA-256>`,
    });
  };
  if (stored.length === 0) {
    await run(false);
    return undefined;
  }
  return {
    stored: stored.length,
    // Listening goes on whatever this finds: what failed is said, never thrown.
    check: () => run(true).catch((error: unknown) => {
      if (!over()) note(f.io, `warning: could not check the companies' subscriptions with the service (${error instanceof Error ? error.message : String(error)}); listening with the ${stored.length} stored on this machine — restart with --subscribe once the service answers to check them`);
    }),
  };
}

/** "could not check N companies' subscriptions with the service (A, B, C, …): why; …": one line for all of them. */
function uncheckedText(unchecked: readonly { target: { company: string }; error: unknown }[]): string {
  const messages = new Map<string, number>();
  for (const { error } of unchecked) {
    const message = error instanceof Error ? error.message : String(error);
    messages.set(message, (messages.get(message) ?? 0) + 1);
  }
  const [[why]] = [...messages].sort(([, a], [, b]) => b - a) as [[string, number]];
  const others = messages.size > 1 ? ` (and ${messages.size - 1} other error${messages.size === 2 ? '' : 's'})` : '';
  const names = unchecked.slice(0, 3).map((x) => x.target.company).join(', ') + (unchecked.length > 3 ? ', …' : '');
  const n = unchecked.length;
  return `could not check ${n} compan${n === 1 ? "y's subscription" : "ies' subscriptions"} with the service (${names}): ${why}${others}; listening with the secrets stored on this machine for them, so their deliveries are still taken — restart the listener with --subscribe once the service answers to check them`;
}

/**
 * `--subscribe` with no secret store: with SVC_WEBHOOK_SECRET handed in (a restart), the
 * subscription the service lists for this URL and events is reused and that variable
 * verifies its deliveries; otherwise one is created only with --show-secret, and its secret
 * printed once for the person to keep (as SVC_WEBHOOK_SECRET for the next start).
 */
async function subscribeWithoutStore(f: Factory, request: WebhookSubscriptionRequest, secrets: SecretSet, opts: { showSecret: boolean; handedIn: boolean }): Promise<void> {
  const listed = opts.handedIn ? await listedSubscriptionFor(f, request) : undefined;
  if (listed) {
    note(f.io, `reusing subscription ${listed.id} to ${listed.events.join(', ')} at ${request.notificationUrl}; its deliveries are verified with SVC_WEBHOOK_SECRET (no secret store is used)`);
    return;
  }
  if (!opts.showSecret) throw noSecretStoreError(`the service lists no subscription to ${request.notificationUrl} for these events whose secret SVC_WEBHOOK_SECRET could be, and a new one's signing secret could be kept nowhere`);
  const created = await subscribe(f, request);
  secrets.add(created.secret, deliveryPathOf(created.notificationUrl));
  note(f.io, `subscribed ${created.id} to ${created.events.join(', ')} at ${request.notificationUrl}`);
  note(f.io, `warning: subscription ${created.id}'s signing secret is printed once and kept nowhere: keep it now and start the next \`svc webhook listen --subscribe\` on this URL with it as SVC_WEBHOOK_SECRET; the service never shows it again`);
  printSecret(f, created);
}

/** The subscription with its secret on stdout: a `{ "subscription": … }` line under --json, else its ID and the secret on two lines. */
function printSecret(f: Factory, subscription: WebhookSubscription): void {
  if (f.io.json) f.io.stdout.write(`${jsonText({ subscription })}\n`);
  else f.io.stdout.write(`${subscription.id}\n${subscription.secret}\n`);
}

function noSecretStoreError(why: string): UsageError {
  return new UsageError(`no secret store is used (credentials come from the environment), so ${why}`, {
    hint: 'add --show-secret to have it printed once (then keep it, and start the next listener with it as SVC_WEBHOOK_SECRET), set SVC_WEBHOOK_SECRET to the secret of the subscription to this URL, or set SVC_SECRET_STORE=file or keychain to store it',
  });
}

/**
 * Every refused request in one line on stderr (and an NDJSON line with `"rejected": true` on
 * stdout under --json), so that a listener that gets deliveries it cannot accept says so;
 * a count by reason when it stops, the most frequent first. Never the body or a secret.
 */
function rejectionReporter(f: Factory, log: ListenLog): { report(rejection: Rejection): void; summarize(): void } {
  // By kind, not by error code: one code (400 invalid_signature) covers a clock, a secret and a sender to fix.
  const counts = new Map<string, number>();
  // Requests that are no delivery (a probe at the wrong port) are counted apart: not refused deliveries.
  let offRoute = 0;
  return {
    report(rejection) {
      const outcome = refusalOutcome(rejection);
      if (outcome === 'off_route') offRoute += 1;
      else counts.set(rejection.kind, (counts.get(rejection.kind) ?? 0) + 1);
      if (log.format === 'json') log.delivery(outcome, { status: rejection.status, reason: rejection.reason });
      else if (outcome === 'off_route') note(f.io, `answered a request that is no delivery: ${rejection.status} ${rejection.reason}`);
      else note(f.io, `refused a delivery: ${rejection.status} ${rejection.reason}`);
      if (f.io.json) f.io.stdout.write(`${jsonText({ rejected: true, receivedAt: new Date(f.clock.now()).toISOString(), status: rejection.status, error: rejection.code, reason: rejection.reason })}\n`);
    },
    summarize() {
      if (offRoute > 0) note(f.io, `answered ${offRoute} request${offRoute === 1 ? '' : 's'} that ${offRoute === 1 ? 'was' : 'were'} no delivery (another path, or not a POST)`);
      if (counts.size === 0) return;
      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      // A stable sort: kinds counted alike stay in the order they were first seen.
      const byCount = [...counts].sort(([, a], [, b]) => b - a);
      note(f.io, `refused ${total} deliver${total === 1 ? 'y' : 'ies'} while listening: ${byCount.map(([kind, n]) => `${n} × ${kind}`).join(', ')}`);
    },
  };
}

/**
 * A listener on anything but loopback takes deliveries from other machines: every interface
 * only when asked for with --public, and any other address with a warning naming it. The
 * signatures still guard what is stored; the exposure is the person's choice to make.
 */
function checkExposure(host: string, allowed: boolean): boolean {
  if (isLoopbackHost(host)) return false;
  if ((host === '0.0.0.0' || host === '::' || host === '[::]') && !allowed) {
    throw new UsageError(`--host ${host} listens on every network interface, reachable from other machines`, {
      hint: 'add --public if that is what you want, or leave out --host for 127.0.0.1',
    });
  }
  return true;
}

/** SVC_WEBHOOK_CLAIM_SECONDS: how long a listener's claim on a delivery lasts before the others take it over. */
function claimSecondsOf(f: Factory): number {
  const value = f.env.SVC_WEBHOOK_CLAIM_SECONDS;
  if (value === undefined || value === '') return DEFAULT_CLAIM_SECONDS;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 1 && seconds <= 3600) return seconds;
  throw new UsageError(`SVC_WEBHOOK_CLAIM_SECONDS=${value} is not a number of seconds from 1 to 3600`, { hint: `unset it for ${DEFAULT_CLAIM_SECONDS}` });
}

/** Deliveries are still received and journalled without keys: the keys can come later (`replay`). */
async function warnAboutKeys(f: Factory): Promise<void> {
  try {
    if ((await loadKeyring(f)).length === 0) {
      note(f.io, `warning: this profile has no private key, so deliveries are journalled but cannot be decrypted; ${await howToGetAKey(f)}`);
    }
  } catch (error) {
    note(f.io, `warning: ${error instanceof Error ? error.message : String(error)}; deliveries are journalled but cannot be decrypted`);
  }
}


/** A listener on every interface is still reached through loopback by a local sender. */
function notificationUrlOf(url: string, host: string): string {
  if (host === '0.0.0.0') return url.replace('//0.0.0.0:', '//127.0.0.1:');
  if (host === '::') return url.replace('//[::]:', '//[::1]:');
  return url;
}

function parsePath(value: string): string {
  if (!/^\/[^?#\s]*$/.test(value)) throw new UsageError(`--path: "${value}" is not a URL path`, { hint: 'give a path such as /webhooks' });
  return value;
}
