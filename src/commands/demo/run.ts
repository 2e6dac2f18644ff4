// `svc demo`: the merchant flow on an embedded sandbox, one real command per step. It grows
// with each capability; every step is the command a user would run themselves.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_CLIENT_ID } from '../../config/defaults.js';
import type { Factory } from '../../factory.js';
import { freeLoopbackPort } from '../../net-port.js';
import { packageFile } from '../../package-root.js';
import { theme } from '../../io/theme.js';
import type { BuildProgram } from './index.js';
import { createDemoSession } from './session.js';
import { readLocalSubscriptions } from '../../webhook/subscriptions.js';

export interface DemoOptions {
  buildProgram: BuildProgram;
}

export async function run(opts: DemoOptions, f: Factory): Promise<void> {
  const t = theme(f.io, 'stdout');
  const out = (line = '') => f.io.stdout.write(`${line}\n`);
  const heading = (text: string) => out(`\n${t.cyan.bold(`== ${text}`)}`);

  const home = await mkdtemp(join(tmpdir(), 'svc-demo-'));
  const [{ startSandbox }, { bundledFixturePath, loadFixture }] = await Promise.all([
    import('../../sandbox/server.js'),
    import('../../sandbox/fixture.js'),
  ]);
  // The demo's login listens on a free port of its own, registered with its own sandbox, so
  // it never collides with a running `svc auth login` (or another demo) on the default port.
  const redirectUri = `http://127.0.0.1:${await freeLoopbackPort()}/callback`;
  const fixture = await loadFixture(bundledFixturePath());
  const client = fixture.clientApplications.find((a) => a.id === SANDBOX_CLIENT_ID);
  client?.redirectUris.push(redirectUri);
  const sandbox = await startSandbox({ port: 0, autoApprove: true, fixture });
  try {
    heading('An embedded sandbox: the whole service, locally');
    out(`listening on ${sandbox.url} (consent requests are approved automatically, as in CI)`);
    out(t.dim(`config and secrets for this demo live in ${home} and in memory, and are removed afterwards`));
    const demo = await createDemoSession(f, sandbox.url, home, opts.buildProgram);
    await (await demo.factory().config()).updateProfile('local', (p) => ({ ...p, redirectUri }));

    heading('Settings: flag > environment > profile > built-in');
    await demo.svc(['config', 'list']);

    heading('Where secrets live (never their values)');
    await demo.svc(['auth', 'status']);

    heading('Log in: OAuth with PKCE, a loopback callback, and one Grant per approved company');
    await demo.svc(['auth', 'login']);
    await demo.svc(['grants', 'list', '--details']);

    heading('A key pair to decrypt what customers encrypt for us (private half in the keychain)');
    await demo.svc(['keys', 'generate', '--upload']);
    await demo.svc(['keys', 'show-remote']);

    heading('Find the customer: every device of hers gets its own encrypted copy');
    await demo.svc(['recipient', 'resolve', '--email', 'alice@example.com']);

    heading('Issue a receipt: template, inject the customer, encrypt per device, submit once');
    const receipt = await receiptDatedToday(home);
    const customer = packageFile(join('fixtures', 'customers', 'alice.json'));
    const receiptId = (await demo.svc(['receipt', 'send', '--file', receipt, '--email', 'alice@example.com', '--customer', customer])).trim();
    await demo.svc(['sandbox', 'deliveries', receiptId]);
    await demo.svc(['receipt', 'list']);

    heading('Run it again (a CI retry, a lost answer): the same receipt, nothing issued twice');
    await demo.svc(['receipt', 'send', '--file', receipt, '--email', 'alice@example.com', '--customer', customer]);

    heading('A flaky link: the service answers 503 twice; svc waits as Retry-After says and asks again');
    await demo.svc(['sandbox', 'trigger', 'outage', '--requests', '2']);
    await demo.svc(['receipt', 'send', '--file', await withDocumentNumber(home, receipt, 'F'), '--email', 'alice@example.com']);
    out(t.dim('its first two requests were answered 503: svc waited 1 s each time and asked again (a write always with the same Idempotency-Key, so nothing is issued twice; `--debug` shows each try)'));

    heading('Many at once: one line per receipt, results as NDJSON, resumable after a crash');
    await demo.svc(['receipt', 'send', '--batch', await batchFile(home, receipt)]);

    heading('A local webhook receiver: signatures checked on the raw body, journalled before 2xx, decrypted');
    const listenPort = String(await freeLoopbackPort());
    const adminPort = String(await freeLoopbackPort());
    const listener = await demo.background(['webhook', 'listen', '--port', listenPort, '--subscribe', '--admin-port', adminPort]);

    heading('Run as a service, it answers health checks on an admin port of its own (/healthz, /readyz, /metrics)');
    await listener.waitFor(/^ready: \S+ answers 200$/m);
    const readyz = `http://127.0.0.1:${adminPort}/readyz`;
    out(`$ curl ${readyz}`);
    const ready = await getText(readyz);
    out(ready.text.trim());
    out(t.dim(`HTTP ${ready.status}: a load balancer sends deliveries here only while this says ready; on SIGTERM it turns 503 at once and the listener drains`));

    heading('A customer asks to return the milk; the request arrives encrypted for our key');
    const requestId = (
      await demo.svc(['sandbox', 'trigger', 'return-request', receiptId, '--item', '4001234567890:1', '--note', 'the carton leaks'])
    ).trim();
    await demo.svc(['credit-note', 'poll']);

    heading('Decide: the request as the credit note it would be, every check shown (an ID prefix will do)');
    await demo.svc(['credit-note', 'show', requestId.slice(0, 8)]);
    await demo.svc(['credit-note', 'issue', requestId.slice(0, 8), '--dry-run']);

    heading('Accept, check it against our own records, issue the credit note to every device, complete');
    await demo.svc(['credit-note', 'accept', requestId]);
    const creditNoteId = (await demo.svc(['credit-note', 'issue', requestId, '--yes', '--complete'])).trim();
    await demo.svc(['sandbox', 'deliveries', creditNoteId]);
    await demo.svc(['credit-note', 'poll', '--status', 'COMPLETED']);

    heading('Accept only part of a return: the part is recorded, and the credit note is exactly it');
    const partRequestId = (
      await demo.svc(['sandbox', 'trigger', 'return-request', receiptId, '--item', '4001234567890:1', '--item', '4009876543210:1'])
    ).trim();
    await demo.svc(['credit-note', 'accept', partRequestId, '--item', '4009876543210:1']);
    await demo.svc(['credit-note', 'issue', partRequestId, '--yes', '--complete']);
    // Read from the ledger: what was issued, for which receipt, how much, by whom.
    await demo.svc(['credit-note', 'list']);

    heading('A platform acts for many companies: one command over every Grant, each row naming its company');
    await demo.svc(['credit-note', 'poll', '--all-grants', '--all']);

    heading('Both events reached the receiver, verified and decrypted');
    await listener.waitFor(/--> RETURN_REQUESTED[\s\S]*--> CREDIT_NOTE_CREATED|--> CREDIT_NOTE_CREATED[\s\S]*--> RETURN_REQUESTED/);
    await listener.stop();
    await demo.svc(['webhook', 'events']);

    heading('Listening again reuses the subscription (no second delivery of each event); unsubscribe when done');
    const again = await demo.background(['webhook', 'listen', '--port', listenPort, '--subscribe']);
    await again.stop();
    await demo.svc(['webhook', 'list']);
    const [subscription] = await readLocalSubscriptions(demo.factory());
    if (subscription) await demo.svc(['webhook', 'unsubscribe', subscription.id.slice(0, 'whsub_'.length + 8)]);

    heading('Or by email, as a PDF');
    await demo.svc(['receipt', 'email', '--file', receipt, '--to', 'alice@example.com']);
    await demo.svc(['sandbox', 'outbox']);

    heading('Tokens are cached per Grant and scope: none of the calls above asked twice');
    await demo.svc(['token', 'validate']);
    await demo.svc(['auth', 'status']);

    heading('The sandbox is ours to steer: move its clock');
    await demo.svc(['sandbox', 'clock', 'advance', '1h']);

    heading('Done');
    // The README's tour: an auto-approving sandbox and a login that needs no browser.
    out('Next: `svc sandbox start --auto-approve` in one terminal, then `svc sandbox login` in another (the README\'s tour);');
    out('work the return queue with `svc credit-note poll --watch`, or `svc credit-note triage` one request at a time.');
  } finally {
    await sandbox.close();
    await rm(home, { recursive: true, force: true });
  }
}

/** GET a loopback URL, as `curl` would show it. */
async function getText(url: string): Promise<{ status: number; text: string }> {
  const { get } = await import('node:http');
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** The receipt under a document number of its own (a document number identifies a document). */
async function withDocumentNumber(home: string, receipt: string, suffix: string): Promise<string> {
  const template = JSON.parse(await readFile(receipt, 'utf8')) as { documentNumber: string };
  const path = join(home, `receipt-${suffix}.json`);
  await writeFile(path, JSON.stringify({ ...template, documentNumber: `${template.documentNumber}-${suffix}` }, null, 2));
  return path;
}

/** Three receipts of the demo's basket under their own document numbers, one JSON line each. */
async function batchFile(home: string, receipt: string): Promise<string> {
  const template = JSON.parse(await readFile(receipt, 'utf8')) as { documentNumber: string };
  const path = join(home, 'receipts.jsonl');
  const lines = [1, 2, 3].map((n) => JSON.stringify({ template: { ...template, documentNumber: `${template.documentNumber}-B${n}` }, email: 'alice@example.com' }));
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
}

/** The groceries fixture, dated now: returns are accepted only within 30 days of purchase. */
async function receiptDatedToday(home: string): Promise<string> {
  const request = JSON.parse(await readFile(packageFile(join('fixtures', 'receipts', 'groceries.json')), 'utf8')) as Record<string, unknown>;
  const path = join(home, 'groceries.json');
  await writeFile(path, JSON.stringify({ ...request, issueDate: new Date().toISOString() }, null, 2));
  return path;
}
