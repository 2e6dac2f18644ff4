// The transports over undici (transport.ts loads this module only when one is needed): through
// a proxy, with undici's ProxyAgent (a CONNECT tunnel, credentials from the proxy URL), and
// over a given dispatcher (tests' MockAgent). A module of its own so that undici is bundled
// with the proxy path alone, and imported statically here (its CommonJS exports by name).
import { isIP } from 'node:net';
import { Pool, ProxyAgent, request, type Dispatcher } from 'undici';
import { shownProxy } from '../net/proxy-for.js';
import type { Timeouts } from '../net/settings.js';
import { decoded, type Transport } from './transport.js';

/** Over `dispatcher`; the caller closes it. */
export function dispatcherTransport(dispatcher: Dispatcher): Transport {
  return {
    async send(url, req) {
      const res = await request(url, { dispatcher, method: req.method as Dispatcher.HttpMethod, headers: req.headers, body: req.body });
      return decoded({ statusCode: res.statusCode, headers: res.headers, body: res.body });
    },
    close: async () => undefined,
  };
}

/**
 * Through `proxy`. A failure to reach the proxy, or a refusal from it (407), is marked with
 * `proxy` (its URL without credentials), and the refusal with `proxyStatus`, so that the
 * message names the proxy rather than the service.
 */
export function proxyTransport(proxy: string, timeouts: Timeouts, ca?: string[]): Transport {
  const shown = shownProxy(proxy);
  const parsed = new URL(proxy);
  // undici sends credentials only with a password; a user name alone (a token, for some
  // proxies) goes as curl sends it: "user:".
  const userOnly = parsed.username !== '' && parsed.password === '' ? `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:`).toString('base64')}` : undefined;
  const agent = new ProxyAgent({
    uri: proxy,
    ...(userOnly !== undefined && { token: userOnly }),
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.answerMs,
    bodyTimeout: timeouts.answerMs,
    // The connection to the proxy and its answer to CONNECT keep svc's timeouts too: undici's
    // own client for them waits 300 s for that answer, and a proxy that takes the connection
    // and says nothing held svc that long. A failure there is the proxy's.
    // An https:// proxy is trusted as the service is: SVC_CA_FILE too.
    proxyTls: { timeout: timeouts.connectMs, ...(ca && { ca }) },
    clientFactory: (origin: URL, options: object) => {
      const pool = new Pool(origin, { ...options, headersTimeout: timeouts.answerMs, bodyTimeout: timeouts.answerMs });
      const tunnel = pool.connect.bind(pool) as (opts: Dispatcher.ConnectOptions, callback?: unknown) => Promise<Dispatcher.ConnectData>;
      // A proxy named by its IP address gets no TLS server name (RFC 6066; undici passes the
      // address, which Node 20 only warns about and Node 22+ refuses): its certificate is
      // still checked against the address.
      const named = (opts: Dispatcher.ConnectOptions): Dispatcher.ConnectOptions => {
        const { servername } = opts as { servername?: string };
        return servername !== undefined && isIP(servername) !== 0 ? ({ ...opts, servername: undefined } as Dispatcher.ConnectOptions) : opts;
      };
      Object.assign(pool, {
        // ProxyAgent asks for the tunnel as a promise (undici 6); a callback is passed on as it is.
        connect: (opts: Dispatcher.ConnectOptions, callback?: unknown) =>
          callback !== undefined
            ? tunnel(named(opts), callback)
            : tunnel(named(opts)).catch((error: unknown) => {
                throw Object.assign(error as object, { proxy: shown });
              }),
      });
      return pool;
    },
    requestTls: { timeout: timeouts.connectMs, ...(ca && { ca }) },
  });
  const via = new URL(proxy);
  const proxyPort = Number(via.port) || (via.protocol === 'https:' ? 443 : 80);
  const inner = dispatcherTransport(agent);
  return {
    async send(url, req) {
      try {
        return await inner.send(url, req);
      } catch (thrown) {
        // undici wraps a proxy certificate made out to another name; the cause is the TLS error.
        const wrapped = (thrown as { code?: unknown; cause?: unknown }).code === 'UND_ERR_PRX_TLS' ? (thrown as { cause?: unknown }).cause : undefined;
        const error = typeof wrapped === 'object' && wrapped !== null ? Object.assign(wrapped, { proxy: shown }) : thrown;
        const e = error as { port?: unknown; hostname?: unknown; message?: unknown };
        const refusal = /^Proxy response \((\d+)\)/.exec(String(e.message ?? ''));
        const atProxy = e.port === proxyPort || e.hostname === via.hostname;
        if (refusal || atProxy) Object.assign(error as object, { proxy: shown, ...(refusal && { proxyStatus: Number(refusal[1]) }) });
        throw error;
      }
    },
    close: () => agent.close(),
  };
}
