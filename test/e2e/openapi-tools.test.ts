// The OpenAPI document checked by the tools a CI author reaches for: `redocly lint` finds no
// error in it (as `svc sandbox openapi` prints it and as the sandbox serves it), and Prism,
// proxying between svc and the sandbox with --errors, sees a whole merchant flow without a
// single violation of it (and does catch one when a request breaks the document).
// The login itself goes to the sandbox directly: Prism's proxy follows the authorization
// redirect to the loopback callback itself, which no proxy in front of a browser flow may do.
import { type ResultPromise, execa } from 'execa';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/net-port.js';
import { repoRoot, runSvc } from './helpers.js';
import { startMerchant, type Merchant } from './merchant.js';
import { tempDirs } from './helpers.js';

const dirs = tempDirs();
const bin = (name: string) => join(repoRoot, 'node_modules', '.bin', name);
const quiet = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
let m: Merchant;
beforeAll(async () => {
  m = await startMerchant(dirs);
}, 120_000);
afterAll(async () => {
  await m?.sandbox.stop();
  await dirs.cleanup();
});

async function lint(file: string): Promise<{ errors: number; problems: { ruleId: string; severity: string; message: string }[] }> {
  const r = await execa(bin('redocly'), ['lint', file, '--format=json'], { env: { ...process.env, ...quiet }, reject: false });
  const report = JSON.parse(r.stdout) as { totals: { errors: number }; problems: { ruleId: string; severity: string; message: string }[] };
  return { errors: report.totals.errors, problems: report.problems.filter((p) => p.severity === 'error') };
}

describe('redocly lint', () => {
  it('no errors in the document `svc sandbox openapi` prints, nor in the one the sandbox serves', async () => {
    const dir = await dirs.make('svc-openapi-');
    const printed = join(dir, 'printed.json');
    await writeFile(printed, (await runSvc(['sandbox', 'openapi'])).stdout);
    const served = join(dir, 'served.json');
    await writeFile(served, await (await fetch(`${m.sandbox.url}/openapi.json`)).text());
    for (const file of [printed, served]) {
      const result = await lint(file);
      expect(result.problems, file).toEqual([]);
      expect(result.errors).toBe(0);
    }
  }, 60_000);
});

describe('Prism proxy --errors between svc and the sandbox', () => {
  let prism: ResultPromise | undefined;
  let log = '';
  afterAll(() => {
    prism?.kill('SIGTERM');
  });

  it('a whole flow without a violation, and a request that breaks the document is caught', async () => {
    const document = join(await dirs.make('svc-prism-'), 'openapi.json');
    await writeFile(document, await (await fetch(`${m.sandbox.url}/openapi.json`)).text());
    const port = await freeLoopbackPort();
    prism = execa(bin('prism'), ['proxy', document, m.sandbox.url, '--errors', '--host', '127.0.0.1', '--port', String(port)], { env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, reject: false, all: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${log}`)), 90_000);
      prism!.all!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('Prism is listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const env = { SVC_BASE_URL: `http://127.0.0.1:${port}` };
    const svc = async (args: string[]) => {
      const r = await runSvc(args, { home: m.home, env, timeout: 60_000 });
      expect(r.exitCode, `svc ${args.join(' ')}\n${r.stderr}`).toBe(0);
      return r.stdout.trim();
    };
    const started = log.length;
    await svc(['keys', 'upload']);
    const receipt = await svc(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com', '--jq', '.serviceReceiptId']);
    const request = await svc(['sandbox', 'trigger', 'return-request', receipt, '--item', '4001234567890:1']);
    await svc(['credit-note', 'poll', '--json']);
    await svc(['credit-note', 'accept', request]);
    await svc(['credit-note', 'issue', request, '--yes', '--complete']);
    await svc(['webhook', 'subscribe', '--url', 'https://shop.example/prism', '--events', 'RETURN_REQUESTED']);
    const grant = await svc(['token', 'get', '--jq', '.grant_id']);
    await svc(['api', 'GET', `/oauth2/grants/${grant}`]);
    // On stdin, as the help says: out of the process list (and a token may begin with '-').
    const validated = await runSvc(['token', 'validate', '-'], { home: m.home, env, input: await svc(['token', 'get']), timeout: 60_000 });
    expect(validated.exitCode, validated.stderr).toBe(0);
    const flow = log.slice(started);
    expect(flow).toMatch(/post \/receipt\/encrypted/);
    expect(flow).toMatch(/post \/credit-note\/encrypted/);
    expect(flow.split('\n').filter((l) => /✖|violation/i.test(l))).toEqual([]);

    // Prism does see a request that breaks the document.
    const broken = await runSvc(['api', 'POST', '/recipient/resolve', '-F', 'email=5'], { home: m.home, env });
    expect(broken.exitCode).not.toBe(0);
    await expect.poll(() => log.slice(started + flow.length), { timeout: 10_000 }).toMatch(/✖|violation/i);
  }, 240_000);
});
