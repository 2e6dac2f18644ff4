import { type Command, Option } from 'commander';
import { collect } from '../../completion/values.js';
import type { CommandContext } from '../context.js';
import { readsEnv, wrappedHelpText } from '../../help/layout.js';
import { grantOption } from '../grant-flag.js';

const BULK_HELP = wrappedHelpText([
  '',
  'The endpoints (sandbox only), for scripts and other clients:',
  '  POST /sandbox/receipts/{serviceReceiptId}/return-requests',
  '      one request; 201: the queue item',
  '  POST /sandbox/return-requests/bulk',
  '      many; 201: { serviceReceiptId, count, requestIds }',
  'Body (every member optional, but serviceReceiptId and count for bulk):',
  '  { "serviceReceiptId": "…", "count": 1-100000,',
  '    "items": [{ "productId": "…", "quantity": 1, "reasonCode"?: "…" }],',
  '    "reasonCode": "DAMAGED", "refundPreference": "ORIGINAL_PAYMENT_METHOD",',
  '    "customerNote": "…",',
  '    "createdAt": "2026-11-19T10:00:00Z" | "ageSeconds": 604800 }',
  '  items: every line once by default; createdAt: the sandbox clock\'s now',
  'e.g.',
  '  svc api POST /sandbox/return-requests/bulk \\',
  '    -f serviceReceiptId=ID -F count=100 -F ageSeconds=604800',
].join('\n'));

export function registerSandbox(program: Command, ctx: CommandContext): void {
  const sandbox = program.command('sandbox').description('the local implementation of the whole service, for development, demos and CI');
  sandbox
    .command('start')
    .description('run the sandbox service in the foreground')
    .addOption(new Option('--port <n>', 'port (0 picks a free one)').env('SVC_SANDBOX_PORT').default('8787'))
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--fixture <path>', 'seed data (default: the bundled fixtures/sandbox.json)')
    .option('--auto-approve', 'approve authorization requests at once (CI)')
    .option('--webhook-retry-base-ms <ms>', 'delay before the first webhook retry; later ones double', '1000')
    .option('--webhook-max-attempts <n>', 'webhook delivery attempts before giving up', '8')
    .option('--rate-limit <n>', 'requests a second each client may make per company, i.e. per Grant (429 above; default 50, burst 100)')
    .option('--state <dir>', 'keep Grants, tokens, receipts, the queue and the clock here across restarts (default on a fixed port: under the state directory)')
    .option('--ephemeral', 'keep nothing across restarts (the default with --port 0)')
    .option('--companies <n>', "the administrator approves for N companies: the fixture's, then generated ones (a platform's world)")
    .option('--latency <time>', 'hold each answer this long, as a service across a network would: 40ms, 1s, or a range 20-60ms (uniform); no CPU spent (default 0)')
    .action(
      (
        flags: { port: string; host: string; fixture?: string; autoApprove?: boolean; webhookRetryBaseMs: string; webhookMaxAttempts: string; rateLimit?: string; state?: string; ephemeral?: boolean; companies?: string; latency?: string },
        cmd: Command,
      ) => ctx.run(cmd, () => import('./start.js'), flags),
    );
  const trigger = sandbox.command('trigger').description('simulate what customers do').addHelpText('after', BULK_HELP);
  grantOption(trigger
    .command('return-request'))
    .description("a customer's device asks to return items of a receipt")
    .argument('<service-receipt-id>')
    .option('--item <product-id:qty>', 'item to return (repeatable; default: every line once)', collect)
    .option('--refund <preference>', 'ORIGINAL_PAYMENT_METHOD, BANK_TRANSFER or STORE_CREDIT', 'ORIGINAL_PAYMENT_METHOD')
    .option('--note <text>', 'customer note')
    .option('--reason <code>', 'reason code of every item, e.g. DEFECTIVE (default DAMAGED)')
    .option('--companies <n>', "one request in each of N companies: the receipt's and others that granted its client (sandbox start --companies)")
    .option('--age <duration>', 'asked this long ago, e.g. 7d, 12h (not before the purchase)')
    .option('--created-at <time>', 'asked at this ISO 8601 time (not before the purchase, not after the sandbox clock)')
    .option('--count <n>', 'that many requests at once, through the bulk endpoint (no RETURN_REQUESTED events; with --companies, dealt out over them in turn, with events)')
    .addHelpText('after', BULK_HELP)
    .action(
      (
        serviceReceiptId: string,
        flags: { item?: string[]; refund: string; note?: string; reason?: string; companies?: string; age?: string; createdAt?: string; count?: string },
        cmd: Command,
      ) => ctx.run(cmd, () => import('./trigger-return-request.js'), { serviceReceiptId, ...flags }),
    );
  trigger
    .command('cancel')
    .description('the customer cancels a return request')
    .argument('<request-id>')
    .action((requestId: string, _flags, cmd: Command) => ctx.run(cmd, () => import('./trigger-cancel.js'), { requestId }));
  trigger
    .command('outage')
    .description('the next requests to the API are answered 503 with a Retry-After, as a service restarting answers (watch retries)')
    .option('--requests <n>', 'how many answers are 503s (0 ends an outage)', '2')
    .option('--retry-after <seconds>', 'the Retry-After they carry', '1')
    .action((flags: { requests: string; retryAfter: string }, cmd: Command) => ctx.run(cmd, () => import('./trigger-outage.js'), flags));
  sandbox
    .command('openapi')
    .description('the interface as an OpenAPI 3.1 document (also GET /openapi.json of a running sandbox)')
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./openapi.js'), {}));
  sandbox
    .command('login')
    .description('log in to a sandbox started with --auto-approve in one step (the grant flow, no browser): for CI')
    .option('--port <n>', "loopback callback port (default: the redirect URI's)")
    .option('--timeout <seconds>', 'how long to wait for the approval', '30')
    .option('--scopes <scopes>', 'space-separated scopes to request')
    .addOption(readsEnv(new Option('--client-id <id>', 'client ID of the integration'), 'SVC_CLIENT_ID'))
    .action((flags: { port?: string; timeout: string; scopes?: string; clientId?: string }, cmd: Command) => ctx.run(cmd, () => import('./login.js'), flags));
  sandbox
    .command('revoke')
    .description("revoke a Grant, only that company's (a Grant ID or prefix, a tax ID, or part of the company name; another profile's Grant by its whole ID)")
    .argument('<grant-id>')
    .action((grantId: string, _flags, cmd: Command) => ctx.run(cmd, () => import('./revoke.js'), { grantId }));
  const clock = sandbox.command('clock').description("move the sandbox's clock");
  clock
    .command('advance')
    .description('advance the clock, e.g. to expire tokens and codes; prints the new time')
    .argument('<seconds>', 'whole seconds, or with a unit: 90, 15m, 1h, 30d')
    .action((seconds: string, _flags, cmd: Command) => ctx.run(cmd, () => import('./clock-advance.js'), { seconds }));
  clock
    .command('reset')
    .description('the clock back to real time (what advance moved); prints the time')
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./clock-reset.js'), {}));
  sandbox
    .command('outbox')
    .description('emails the sandbox has "sent"')
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./outbox.js'), {}));
  sandbox
    .command('deliveries')
    .description('what the simulated devices received and whether they could decrypt it')
    .argument('[service-receipt-id]')
    .action((serviceReceiptId: string | undefined, _flags, cmd: Command) =>
      ctx.run(cmd, () => import('./deliveries.js'), { serviceReceiptId }),
    );
  sandbox
    .command('reset')
    .description('forget everything since start (back to the fixture)')
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./reset.js'), {}));
}
