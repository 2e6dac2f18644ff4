// How svc's requests travel, from the environment as curl, npm and gh read it: the proxies
// (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY as curl's fallback for both, NO_PROXY, either case,
// lower case first), how long to wait
// (SVC_HTTP_TIMEOUT) and which certificate authorities to trust besides Node's (SVC_CA_FILE). Read once, by the factory, and handed to the one HTTP client.
import { UsageError } from '../errors.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface Timeouts {
  /** To open a connection (TLS included). */
  connectMs: number;
  /** For the head of an answer, and for any silence in its body. */
  answerMs: number;
}

export interface ProxySettings {
  /** For https:// targets (HTTPS_PROXY, else HTTP_PROXY, else ALL_PROXY). */
  https: string | undefined;
  /** For http:// targets (HTTP_PROXY, else ALL_PROXY). */
  http: string | undefined;
  /** NO_PROXY as given. */
  noProxy: string;
  /** The variables `http` and `https` came from, as set (`https_proxy`, or HTTP_PROXY for both), for messages. */
  variables?: { http: string; https: string };
}

export interface NetworkSettings {
  timeouts: Timeouts;
  /** SVC_CA_FILE: certificate authorities (PEM) trusted besides Node's own, read on the first https request. */
  caFile?: string | undefined;
  /** NODE_EXTRA_CA_CERTS as set (Node reads it itself; messages name it). */
  extraCaCerts?: string | undefined;
  /** Undefined when no proxy variable is set: no proxy code is loaded then. */
  proxy: ProxySettings | undefined;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_ANSWER_TIMEOUT_MS = 30_000;

/** The first of `names` set (and not blank), with its name. */
function firstSet(env: Env, ...names: string[]): { name: string; value: string } | undefined {
  const name = names.find((n) => env[n] !== undefined && env[n]?.trim() !== '');
  return name === undefined ? undefined : { name, value: (env[name] ?? '').trim() };
}

const first = (env: Env, ...names: string[]) => firstSet(env, ...names)?.value;

const PROXY_HINT = 'give it as http://host:port (credentials as http://user:password@host:port)';

/**
 * The error for a proxy svc cannot use (not a URL, socks5:// and the like), or undefined;
 * the message names the variable as set, never its value (it may hold credentials). Raised
 * only when a request would go through it: a sandbox on loopback works whatever the shell has.
 */
export function unsupportedProxy(proxy: string, variable: string): UsageError | undefined {
  if (!URL.canParse(proxy)) return new UsageError(`${variable}: not a proxy URL`, { hint: PROXY_HINT });
  const scheme = new URL(proxy).protocol;
  if (scheme === 'http:' || scheme === 'https:') return undefined;
  return new UsageError(`${variable}: ${scheme}// proxies are not supported, only http:// and https:// ones`, { hint: PROXY_HINT });
}

export function networkSettings(env: Env): NetworkSettings {
  // ALL_PROXY: curl's proxy for every scheme that has none of its own.
  const httpSet = firstSet(env, 'http_proxy', 'HTTP_PROXY', 'all_proxy', 'ALL_PROXY');
  const httpsSet = firstSet(env, 'https_proxy', 'HTTPS_PROXY');
  const http = httpSet?.value;
  const https = httpsSet?.value ?? http;
  return {
    timeouts: timeoutsFrom(env.SVC_HTTP_TIMEOUT),
    caFile: env.SVC_CA_FILE?.trim() || undefined,
    extraCaCerts: env.NODE_EXTRA_CA_CERTS?.trim() || undefined,
    proxy:
      http === undefined && https === undefined
        ? undefined
        : {
            http: withScheme(http),
            https: withScheme(https),
            noProxy: first(env, 'no_proxy', 'NO_PROXY') ?? '',
            variables: { http: httpSet?.name ?? 'HTTP_PROXY', https: httpsSet?.name ?? httpSet?.name ?? 'HTTPS_PROXY' },
          },
  };
}

/** A proxy given as host:port is an http:// one, as curl takes it. */
function withScheme(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return value.includes('://') ? value : `http://${value}`;
}

function timeoutsFrom(value: string | undefined): Timeouts {
  if (value === undefined || value.trim() === '') return { connectMs: DEFAULT_CONNECT_TIMEOUT_MS, answerMs: DEFAULT_ANSWER_TIMEOUT_MS };
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    throw new UsageError(`SVC_HTTP_TIMEOUT: "${value}" is not a number of seconds from 0 to 3600`, {
      hint: `the default is ${DEFAULT_ANSWER_TIMEOUT_MS / 1000} (seconds to wait for an answer, or in its silence)`,
    });
  }
  const answerMs = Math.round(seconds * 1000);
  return { connectMs: Math.min(DEFAULT_CONNECT_TIMEOUT_MS, answerMs), answerMs };
}
