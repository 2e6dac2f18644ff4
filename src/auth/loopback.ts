// The loopback listener that receives the OAuth redirect (RFC 8252 §7.3). It listens on
// 127.0.0.1 only, so nothing on the network can deliver a code, answers only the redirect
// URI's path, and ignores any callback whose `state` is not this login's: such a request
// gets a 400 page and the listener keeps waiting for the real one.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthError, CancelError, SvcError, UsageError } from '../errors.js';
import type { OAuthState } from './state.js';

export const LOOPBACK_HOST = '127.0.0.1';

export interface CallbackOptions {
  /** The registered redirect URI; port 0 binds any free port. */
  redirectUri: string;
  state: OAuthState;
  timeoutMs: number;
  /** Told about each refused request, e.g. to note it on stderr (never with its query). */
  onRefused?: (reason: string) => void;
}

export interface CallbackListener {
  /** The redirect URI with the port actually bound. */
  readonly redirectUri: string;
  readonly port: number;
  readonly address: string;
  /** The code of the first valid callback; rejects on denial, an OAuth error or the timeout. */
  readonly code: Promise<string>;
  /** Stops listening; safe to call more than once. */
  close(): Promise<void>;
}

const PAGE_STYLE = 'font-family:system-ui,sans-serif;margin:3em auto;max-width:36em;line-height:1.5';

const PAGES = {
  approved: ['svc is authorized', 'You can close this tab and return to the terminal.'],
  denied: ['Authorization denied', 'svc was not authorized. You can close this tab.'],
  failed: ['Authorization failed', 'The service reported an error; the terminal says more. You can close this tab.'],
  refused: ['Not accepted', 'This response does not belong to the sign-in that svc is waiting for. Return to the terminal.'],
  missingCode: ['Not accepted', 'The response carries no authorization code. Return to the terminal.'],
  notFound: ['Not found', 'Nothing here.'],
  method: ['Method not allowed', 'Only GET is answered here.'],
} as const;

/** Parses and checks the redirect URI: plain http on 127.0.0.1 or localhost, as RFC 8252 asks. */
export function loopbackRedirect(redirectUri: string): URL {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    throw new UsageError(`redirect URI "${redirectUri}" is not a URL`, { hint: 'run `svc config set redirect-uri http://127.0.0.1:8765/callback`' });
  }
  if (url.protocol !== 'http:' || (url.hostname !== LOOPBACK_HOST && url.hostname !== 'localhost')) {
    throw new UsageError(`redirect URI ${url.origin} is not a loopback address svc can listen on`, {
      hint: 'register and configure an http://127.0.0.1:PORT/PATH redirect URI (`svc config set redirect-uri ...`)',
    });
  }
  return url;
}

export async function listenForCallback(opts: CallbackOptions): Promise<CallbackListener> {
  const target = loopbackRedirect(opts.redirectUri);
  let settle!: { resolve(code: string): void; reject(error: Error): void };
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Whoever awaits `code` sees the rejection; an early close() must not leave it unhandled.
  code.catch(() => undefined);

  let timer: NodeJS.Timeout | undefined;
  let closing: Promise<void> | undefined;
  const server = createServer((req, res) => handle(req, res));
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      clearTimeout(timer);
      server.close(() => resolve());
      // A browser keeps idle and speculative connections open; they would hold close() forever.
      server.closeAllConnections();
    });
    return closing;
  };
  const finish = (res: ServerResponse, page: keyof typeof PAGES, outcome: () => void) => {
    res.once('finish', () => void close());
    reply(res, 200, page);
    outcome();
  };

  function handle(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET') {
      res.setHeader('allow', 'GET');
      return reply(res, 405, 'method');
    }
    const url = new URL(req.url ?? '/', `http://${LOOPBACK_HOST}`);
    if (url.pathname !== target.pathname) return reply(res, 404, 'notFound');
    const params = url.searchParams;
    if (!opts.state.matches(params.get('state'))) {
      opts.onRefused?.(params.has('state') ? 'a callback with a wrong state' : 'a callback without state');
      return reply(res, 400, 'refused');
    }
    const error = params.get('error');
    if (error !== null) {
      opts.state.consume(params.get('state'));
      if (error === 'access_denied') {
        return finish(res, 'denied', () =>
          settle.reject(new CancelError('authorization was denied in the browser', { hint: 'run `svc auth login` again and approve the request' })),
        );
      }
      // The code is echoed from the URL: keep it to the characters an OAuth error code has.
      const shown = error.replace(/[^\w.-]/g, '').slice(0, 64) || 'unknown';
      return finish(res, 'failed', () =>
        settle.reject(new AuthError(`authorization failed: ${shown}`, { hint: 'check the client ID, redirect URI and scopes, then run `svc auth login` again' })),
      );
    }
    const value = params.get('code');
    if (!value) {
      opts.onRefused?.('a callback without a code');
      return reply(res, 400, 'missingCode');
    }
    opts.state.consume(params.get('state'));
    finish(res, 'approved', () => settle.resolve(value));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(bindError(error, target)));
    server.listen({ host: LOOPBACK_HOST, port: Number(target.port || 80), exclusive: true }, resolve);
  });
  const { port, address } = server.address() as AddressInfo;
  timer = setTimeout(() => {
    settle.reject(
      new SvcError(`no answer from the browser within ${Math.round(opts.timeoutMs / 1000)} s`, {
        hint: 'run `svc auth login` again (pass --timeout SECONDS for more time)',
      }),
    );
    void close();
  }, opts.timeoutMs);
  const bound = new URL(target.href);
  bound.port = String(port);
  return { redirectUri: bound.href, port, address, code, close };
}

function reply(res: ServerResponse, status: number, page: keyof typeof PAGES): void {
  const [title, text] = PAGES[page];
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // The callback URL carries the code: no page resource may send it on as a Referer.
    'referrer-policy': 'no-referrer',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    'x-content-type-options': 'nosniff',
    connection: 'close',
  });
  res.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>svc: ${title}</title></head>` +
      `<body style="${PAGE_STYLE}"><h1>${title}</h1><p>${text}</p></body></html>\n`,
  );
}

function bindError(error: NodeJS.ErrnoException, target: URL): Error {
  const port = target.port || '80';
  if (error.code === 'EADDRINUSE' || error.code === 'EACCES') {
    return new UsageError(`cannot listen on ${LOOPBACK_HOST}:${port} for the OAuth callback (${error.code})`, {
      hint: 'stop what uses that port, or pass --port N for another redirect URI port registered with the service',
    });
  }
  return error;
}
