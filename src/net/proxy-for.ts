// Which proxy a request goes through, as curl decides it: none for loopback (a sandbox on
// this machine is never reached through a proxy), none for a host NO_PROXY names (`*`, a
// host, `.suffix` or `*.suffix` for it and its subdomains, `host:port`), else HTTPS_PROXY
// for https:// and HTTP_PROXY for http://.
import { BlockList, isIP } from 'node:net';
import { isLoopbackHost } from '../config/base-url.js';
import type { ProxySettings } from './settings.js';

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

export function proxyFor(target: URL, settings: ProxySettings): string | undefined {
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isLoopbackHost(host)) return undefined;
  const port = Number(target.port) || DEFAULT_PORTS[target.protocol] || 0;
  if (bypassed(host, port, settings.noProxy)) return undefined;
  return target.protocol === 'https:' ? settings.https : settings.http;
}

function bypassed(host: string, port: number, noProxy: string): boolean {
  for (const raw of noProxy.split(/[,\s]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    if (entry.includes('/')) {
      if (inRange(host, entry)) return true;
      continue;
    }
    if (isIP(entry) === 6) {
      if (host === entry) return true;
      continue;
    }
    const match = /^(.+):(\d+)$/.exec(entry);
    const name = (match?.[1] ?? entry).replace(/^\[|\]$/g, '');
    if (match && Number(match[2]) !== port) continue;
    const suffix = name.replace(/^\*?\.?/, '');
    if (host === suffix || host.endsWith(`.${suffix}`)) return true;
  }
  return false;
}

/** An IP target within a CIDR range (`10.0.0.0/8`, `fd00::/8`); a range that is not one matches nothing. */
function inRange(host: string, range: string): boolean {
  const family = isIP(host);
  const [address = '', bits = ''] = range.replace(/^\[|\](?=\/)/g, '').split('/');
  if (family === 0 || isIP(address) !== family || !/^\d+$/.test(bits)) return false;
  const prefix = Number(bits);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (prefix > (family === 4 ? 32 : 128)) return false;
  const list = new BlockList();
  list.addSubnet(address, prefix, type);
  return list.check(host, type);
}

/** The proxy's URL as it may be shown: scheme, host and port, never its credentials. */
export function shownProxy(proxy: string): string {
  if (!URL.canParse(proxy)) return '(the proxy)';
  const url = new URL(proxy);
  return `${url.protocol}//${url.host}`;
}
