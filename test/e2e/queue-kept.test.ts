// docs/interface-decisions.md#outstanding-queue: a real service may list only PENDING items in
// `GET /credit-note`. In front of the sandbox, a proxy answers that way; `accept` keeps the
// item in the ledger, so `issue --complete` still finds it after the service stopped listing it.
import { createServer, request as upstreamRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, tempDirs } from './helpers.js';
import { startMerchant, type Merchant } from './merchant.js';

const dirs = tempDirs();
let m: Merchant;
let close: () => Promise<void>;
let url: string;

beforeAll(async () => {
  m = await startMerchant(dirs);
  const target = m.sandbox.url;
  const server = createServer((req, res) => {
    const upstream = upstreamRequest(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        let body = Buffer.concat(chunks);
        if (req.method === 'GET' && req.url === '/credit-note' && answer.statusCode === 200) {
          body = Buffer.from(JSON.stringify((JSON.parse(body.toString()) as { status: string }[]).filter((i) => i.status === 'PENDING')));
        }
        const headers = { ...answer.headers, 'content-length': String(body.length) };
        res.writeHead(answer.statusCode ?? 502, headers);
        res.end(body);
      });
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(async () => {
  await close?.();
  await m?.sandbox.stop();
  await dirs.cleanup();
});

describe('a service that lists only PENDING requests', () => {
  it('accept keeps the request; issue --complete finds it after the service stopped listing it', async () => {
    const env = { SVC_BASE_URL: url };
    const run = (args: string[]) => runSvc(args, { home: m.home, env });
    const { serviceReceiptId } = JSON.parse((await run(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com', '--json'])).stdout) as { serviceReceiptId: string };
    const { requestId } = JSON.parse((await run(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1', '--json'])).stdout) as { requestId: string };
    const accepted = await run(['credit-note', 'accept', requestId]);
    expect(accepted.exitCode, accepted.stderr).toBe(0);
    // No longer listed by the service.
    const listed = JSON.parse((await run(['credit-note', 'poll', '--json'])).stdout) as { requestId: string }[];
    expect(listed.map((i) => i.requestId)).not.toContain(requestId);
    const issued = await run(['credit-note', 'issue', requestId, '--yes', '--complete', '--json']);
    expect(issued.exitCode, issued.stderr).toBe(0);
    expect(JSON.parse(issued.stdout)).toMatchObject({ requestId, status: 'COMPLETED' });
  });
});
