import { describe, expect, it } from 'vitest';
import { proxyFor, shownProxy } from '../../src/net/proxy-for.js';
import { networkSettings } from '../../src/net/settings.js';
import { UsageError } from '../../src/errors.js';
import { networkTransport } from '../../src/api/transport.js';
import { freeLoopbackPort } from '../../src/net-port.js';

const P = 'http://proxy.example:3128';
const settings = (noProxy = '') => ({ https: P, http: 'http://plain.example:8080', noProxy });
const via = (url: string, noProxy = '') => proxyFor(new URL(url), settings(noProxy));

describe('proxyFor', () => {
  it('https through HTTPS_PROXY, http through HTTP_PROXY', () => {
    expect(via('https://api.example.com/x')).toBe(P);
    expect(via('http://api.example.com/x')).toBe('http://plain.example:8080');
  });

  it('never for loopback', () => {
    for (const url of ['http://127.0.0.1:8787', 'http://localhost:1', 'https://[::1]:443', 'http://127.1.2.3']) expect(via(url)).toBeUndefined();
  });

  it('NO_PROXY: *, a host and its subdomains, .suffix, *.suffix, host:port, lists with spaces', () => {
    expect(via('https://api.example.com', '*')).toBeUndefined();
    expect(via('https://api.example.com', 'example.com')).toBeUndefined();
    expect(via('https://example.com', 'example.com')).toBeUndefined();
    expect(via('https://notexample.com', 'example.com')).toBe(P);
    expect(via('https://api.example.com', '.example.com')).toBeUndefined();
    expect(via('https://api.example.com', '*.example.com')).toBeUndefined();
    expect(via('https://api.example.com', 'API.Example.com:443')).toBeUndefined();
    expect(via('https://api.example.com:8443', 'api.example.com:443')).toBe(P);
    expect(via('https://api.example.com', 'other.org, example.com')).toBeUndefined();
    expect(via('https://api.example.com', 'other.org')).toBe(P);
  });

  it('NO_PROXY: IP addresses and CIDR ranges (as curl 7.86+ and gh read them), for IP targets only', () => {
    expect(via('https://10.1.2.3', '10.0.0.0/8')).toBeUndefined();
    expect(via('https://10.1.2.3:8443', '192.168.0.0/16, 10.1.2.0/24')).toBeUndefined();
    expect(via('https://11.1.2.3', '10.0.0.0/8')).toBe(P);
    expect(via('https://10.1.2.3', '10.1.2.3')).toBeUndefined();
    expect(via('https://[fd00::5]', 'fd00::/8')).toBeUndefined();
    expect(via('https://[fe80::5]', 'fd00::/8')).toBe(P);
    expect(via('https://api.example.com', '10.0.0.0/8')).toBe(P);
    expect(via('https://10.1.2.3', '10.0.0.0/99')).toBe(P);
    // A bare IPv6 address is not host:port.
    expect(via('https://[2001:db8::1]', '2001:db8::1')).toBeUndefined();
    expect(via('https://[2001:db8::1]:8443', '[2001:db8::1]:8443')).toBeUndefined();
    expect(via('https://[2001:db8::1]', '[2001:db8::1]:8443')).toBe(P);
  });

  it('shows a proxy without its credentials', () => {
    expect(shownProxy('http://alice:secret@proxy.example:3128/')).toBe('http://proxy.example:3128');
  });
});

describe('networkSettings', () => {
  it('no proxy variable: no proxy; lower case first; HTTP_PROXY also for https; host:port taken as http://', () => {
    expect(networkSettings({}).proxy).toBeUndefined();
    expect(networkSettings({ https_proxy: 'http://a:1', HTTPS_PROXY: 'http://b:2' }).proxy?.https).toBe('http://a:1');
    expect(networkSettings({ HTTP_PROXY: 'proxy:3128' }).proxy).toEqual({ http: 'http://proxy:3128', https: 'http://proxy:3128', noProxy: '', variables: { http: 'HTTP_PROXY', https: 'HTTP_PROXY' } });
    expect(networkSettings({ HTTPS_PROXY: 'http://p:1', no_proxy: '.corp' }).proxy?.noProxy).toBe('.corp');
  });

  it('ALL_PROXY (either case), as curl reads it: for both schemes when neither has its own, never above HTTPS_PROXY or HTTP_PROXY', () => {
    expect(networkSettings({ ALL_PROXY: 'proxy:3128' }).proxy).toEqual({ http: 'http://proxy:3128', https: 'http://proxy:3128', noProxy: '', variables: { http: 'ALL_PROXY', https: 'ALL_PROXY' } });
    expect(networkSettings({ all_proxy: 'http://a:1', ALL_PROXY: 'http://b:2' }).proxy?.https).toBe('http://a:1');
    expect(networkSettings({ ALL_PROXY: 'http://all:1', HTTPS_PROXY: 'http://s:2' }).proxy).toMatchObject({ https: 'http://s:2', http: 'http://all:1' });
    expect(networkSettings({ ALL_PROXY: 'http://all:1', HTTP_PROXY: 'http://h:2' }).proxy).toMatchObject({ https: 'http://h:2', http: 'http://h:2' });
  });

  it('a proxy of another scheme (socks5://): a usage error naming the variable as set, never its credentials, when a request would use it', async () => {
    const refusal = async (env: Record<string, string>, url = 'https://svc.example/x') => {
      const transport = networkTransport(networkSettings(env));
      try {
        await transport.send(url, { method: 'GET', headers: {}, body: undefined });
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return (error as UsageError).message;
      } finally {
        await transport.close();
      }
      throw new Error('accepted');
    };
    expect(await refusal({ https_proxy: 'socks5://alice:secret@proxy:1080' })).toBe('https_proxy: socks5:// proxies are not supported, only http:// and https:// ones');
    expect(await refusal({ HTTP_PROXY: 'socks5h://proxy:1080' })).toBe('HTTP_PROXY: socks5h:// proxies are not supported, only http:// and https:// ones');
    expect(await refusal({ HTTPS_PROXY: 'http://[bad' })).toBe('HTTPS_PROXY: not a proxy URL');
    expect(await refusal({ http_proxy: 'http://[bad' })).toBe('http_proxy: not a proxy URL');
    // ALL_PROXY is often a SOCKS proxy for other tools: named as set, so the user sees which variable to override.
    expect(await refusal({ ALL_PROXY: 'socks5://alice:secret@proxy:1080' })).toBe('ALL_PROXY: socks5:// proxies are not supported, only http:// and https:// ones');
    // A target that goes direct (loopback, NO_PROXY) never reads it: the sandbox works whatever the shell has set.
    const direct = networkTransport(networkSettings({ HTTPS_PROXY: 'http://[bad', HTTP_PROXY: 'socks5://x:1' }));
    try {
      const port = await freeLoopbackPort();
      await expect(direct.send(`http://127.0.0.1:${port}/x`, { method: 'GET', headers: {}, body: undefined })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await direct.close();
    }
    expect(networkSettings({ HTTPS_PROXY: 'https://proxy:3128' }).proxy?.https).toBe('https://proxy:3128');
  });

  it('SVC_HTTP_TIMEOUT: seconds for an answer, connect at most 10 s; anything else is a usage error', () => {
    expect(networkSettings({}).timeouts).toEqual({ connectMs: 10_000, answerMs: 30_000 });
    expect(networkSettings({ SVC_HTTP_TIMEOUT: '120' }).timeouts).toEqual({ connectMs: 10_000, answerMs: 120_000 });
    expect(networkSettings({ SVC_HTTP_TIMEOUT: '2.5' }).timeouts).toEqual({ connectMs: 2_500, answerMs: 2_500 });
    for (const bad of ['0', '-1', 'soon', '1e9']) expect(() => networkSettings({ SVC_HTTP_TIMEOUT: bad })).toThrow(UsageError);
  });
});
