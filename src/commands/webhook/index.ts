import { type Command, Option } from 'commander';
import type { CommandContext } from '../context.js';
import { fanOutOptions, grantOption } from '../grant-flag.js';

export function registerWebhook(program: Command, ctx: CommandContext): void {
  const wh = program.command('webhook').description('subscribe to events and receive them locally');
  fanOutOptions(grantOption(wh.command('subscribe')))
    .description('subscribe a URL to events (reuses this profile\'s subscription for the same URL and events)')
    .requiredOption('--url <url>', 'notification URL')
    .option('--events <list>', 'comma-separated events', 'RETURN_REQUESTED,CREDIT_NOTE_CREATED')
    .option('--name <name>', 'subscription name')
    .option('--show-secret', 'print the signing secret once')
    .option('--own-path', "give each Grant's subscription a path of its own under --url (URL/g…), so `svc webhook listen` checks one secret per delivery")
    .action((flags: { url: string; events: string; name?: string; showSecret?: boolean; ownPath?: boolean; allGrants?: boolean; grants?: string; concurrency?: string }, cmd: Command) =>
      ctx.run(cmd, () => import('./subscribe.js'), flags),
    );
  fanOutOptions(grantOption(wh.command('list')))
    .description('list subscriptions known to this profile')
    .action((flags: { allGrants?: boolean; grants?: string; concurrency?: string }, cmd: Command) => ctx.run(cmd, () => import('./list.js'), flags));
  fanOutOptions(grantOption(wh.command('unsubscribe')))
    .description('remove a subscription on the service and forget its secret here')
    .argument('[id]', 'subscription ID, or a unique prefix of 6+ characters (see `svc webhook list`); or give --url')
    .option('--url <url>', 'remove every subscription to this URL (of this company; with --all-grants or --grants, of each company)')
    .action((id: string | undefined, flags: { url?: string; allGrants?: boolean; grants?: string; concurrency?: string }, cmd: Command) => ctx.run(cmd, () => import('./unsubscribe.js'), { id, ...flags }))
  ;
  fanOutOptions(grantOption(wh.command('listen')))
    .description('run a local receiver that verifies, journals and decrypts deliveries')
    .addOption(new Option('--port <n>', 'port to listen on').env('SVC_WEBHOOK_PORT').default('8790'))
    .option('--host <host>', 'address to bind (anything but loopback is reachable from other machines)', '127.0.0.1')
    .option('--public', 'allow --host 0.0.0.0 or :: (every interface)')
    .option('--path <path>', 'path to accept deliveries on', '/webhooks')
    .option('--forward-to <[events=]url>', 're-post each processed delivery to a local app; repeatable; EVENTS= (a comma list of RETURN_REQUESTED, CREDIT_NOTE_CREATED) routes only those events there; a URL alone takes every event', (value: string, previous: string[] | undefined) => [...(previous ?? []), value])
    .option('--subscribe', 'subscribe this listener (reuses this profile\'s subscription for the same URL)')
    .option('--show-secret', 'with --subscribe: print the signing secret (needed with no secret store; then SVC_WEBHOOK_SECRET on a restart)')
    .option('--admin-port <n>', 'serve GET /healthz, /readyz and /metrics (Prometheus) on this port (never the delivery port)')
    .option('--admin-host <host>', 'address the admin port binds', '127.0.0.1')
    .option('--log-format <format>', 'stderr as text lines, or json: one JSON object a line', 'text')
    .option('--drain-timeout <duration>', 'on SIGTERM, SIGINT or SIGHUP, how long to finish deliveries and forwards in flight (30s, 2m; a bare number is seconds; at most 1h)', '30s')
    .action((flags: { port: string; host: string; path: string; forwardTo?: string[]; subscribe?: boolean; showSecret?: boolean; public?: boolean; adminPort?: string; adminHost: string; logFormat: string; drainTimeout: string; allGrants?: boolean; grants?: string; concurrency?: string }, cmd: Command) =>
      ctx.run(cmd, () => import('./listen.js'), flags),
    );
  wh.command('events')
    .description('list received events from the journal')
    .option('--limit <n>', 'how many, newest first', '20')
    .action((flags: { limit: string }, cmd: Command) => ctx.run(cmd, () => import('./events.js'), flags));
  wh.command('replay')
    .description('process or forward a journalled event again')
    .argument('<event-id>')
    .option('--forward-to <url>', 're-post the original delivery to a local app')
    .action((eventId: string, flags: { forwardTo?: string }, cmd: Command) =>
      ctx.run(cmd, () => import('./replay.js'), { eventId, ...flags }),
    );
  wh.command('verify')
    .description('check a signature offline (exit 0 valid, 1 invalid)')
    .requiredOption('--file <path>', 'raw request body (- for standard input)')
    .requiredOption('--signature <header>', 'X-Service-Signature header value')
    .option('--secret-stdin', 'read the signing secret from stdin (on a terminal: a hidden prompt)')
    .action((flags: { file: string; signature: string; secretStdin?: boolean }, cmd: Command) =>
      ctx.run(cmd, () => import('./verify.js'), flags),
    );
}
