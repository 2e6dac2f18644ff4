// readAll (src/api/transport.ts): an answer read whole, bounded, over a real node:http exchange.
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SvcError } from '../../src/errors.js';
import { readAll } from '../../src/api/transport.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** The response to a GET of a server answering with `answer`. */
async function responseOf(answer: (res: ServerResponse) => void): Promise<IncomingMessage> {
  server = createServer((_req, res) => answer(res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => get({ host: '127.0.0.1', port, path: '/', agent: false }, resolve).once('error', reject));
}

describe('readAll', () => {
  it('joins the chunks of a body in order', async () => {
    const res = await responseOf((r) => {
      r.write('{"a":');
      setTimeout(() => r.end('[1,2,3]}'), 20);
    });
    expect((await readAll(res)).toString('utf8')).toBe('{"a":[1,2,3]}');
  });

  it('an empty body is an empty buffer', async () => {
    const res = await responseOf((r) => r.end());
    expect((await readAll(res)).length).toBe(0);
  });

  it('refuses a body past the limit, names it, and lets the body go', async () => {
    const res = await responseOf((r) => r.end(Buffer.alloc(1024 * 1024 + 1, 0x61)));
    const error = await readAll(res, 1024 * 1024, 'the answer to GET /x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).message).toBe('the answer to GET /x is larger than 1 MiB: svc stopped reading it');
    expect(res.destroyed).toBe(true);
  });

  it('takes a body of exactly the limit', async () => {
    const res = await responseOf((r) => r.end(Buffer.alloc(1024 * 1024, 0x61)));
    expect((await readAll(res, 1024 * 1024)).length).toBe(1024 * 1024);
  });

  it('a body that breaks off rejects with the error `for await` over it would give', async () => {
    const broken = (r: ServerResponse) => {
      r.writeHead(200, { 'content-length': '100' });
      r.write('0123456789', () => setTimeout(() => r.socket?.destroy(), 20));
    };
    const iterated = await (async () => {
      const res = await responseOf(broken);
      try {
        for await (const _ of res) void _;
        return undefined;
      } catch (e) {
        return e as NodeJS.ErrnoException;
      } finally {
        await new Promise<void>((resolve) => server!.close(() => resolve()));
        server = undefined;
      }
    })();
    expect(iterated).toBeDefined();
    const error = (await readAll(await responseOf(broken)).catch((e: unknown) => e)) as NodeJS.ErrnoException;
    expect(error).toBeInstanceOf(Error);
    expect({ code: error.code, message: error.message }).toEqual({ code: iterated!.code, message: iterated!.message });
    expect(error.code).toBe('ECONNRESET');
  });
});
