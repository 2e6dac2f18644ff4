import { describe, expect, it } from 'vitest';
import { isLoopbackHost, validateBaseUrl } from '../../src/config/base-url.js';
import { resolveSettings } from '../../src/config/settings.js';
import { memoryConfigStore } from '../../src/config/store.js';
import { UsageError } from '../../src/errors.js';

describe('settings precedence: flag > env > profile > built-in', () => {
  const config = memoryConfigStore({
    local: { baseUrl: 'http://127.0.0.1:9000', clientId: 'from-profile', grant: 'g-profile' },
    production: { baseUrl: 'https://api.example.com' },
  });

  it('uses the built-in local profile when nothing is set', () => {
    const s = resolveSettings({ flags: {}, env: {}, config: memoryConfigStore() });
    expect(s.profile).toEqual({ value: 'local', source: 'default' });
    expect(s.baseUrl).toEqual({ value: 'http://127.0.0.1:8787', source: 'default' });
    expect(s.redirectUri?.value).toBe('http://127.0.0.1:8765/callback');
  });

  it('profile beats built-in', () => {
    const s = resolveSettings({ flags: {}, env: {}, config });
    expect(s.baseUrl).toEqual({ value: 'http://127.0.0.1:9000', source: 'profile' });
    expect(s.clientId).toEqual({ value: 'from-profile', source: 'profile' });
  });

  it('env beats profile', () => {
    const s = resolveSettings({
      flags: {},
      env: { SVC_BASE_URL: 'http://localhost:7000', SVC_CLIENT_ID: 'from-env', SVC_GRANT_ID: 'g-env' },
      config,
    });
    expect(s.baseUrl).toEqual({ value: 'http://localhost:7000', source: 'env' });
    expect(s.clientId).toEqual({ value: 'from-env', source: 'env' });
    expect(s.grant).toEqual({ value: 'g-env', source: 'env' });
  });

  it('flag beats env', () => {
    const s = resolveSettings({
      flags: { baseUrl: 'https://flag.example.com/', profile: 'production' },
      env: { SVC_BASE_URL: 'http://localhost:7000', SVC_PROFILE: 'local' },
      config,
    });
    expect(s.profile).toEqual({ value: 'production', source: 'flag' });
    expect(s.baseUrl).toEqual({ value: 'https://flag.example.com', source: 'flag' });
  });

  it('SVC_PROFILE selects the profile', () => {
    const s = resolveSettings({ flags: {}, env: { SVC_PROFILE: 'production' }, config });
    expect(s.baseUrl.value).toBe('https://api.example.com');
  });

  it('a profile without a base URL is a usage error that says what to run', () => {
    expect(() => resolveSettings({ flags: { profile: 'sandbox' }, env: {}, config })).toThrow(/profile "sandbox" has no base URL/);
  });

  it('an http:// base URL for a public host is refused, naming where it came from', () => {
    const err = (() => {
      try {
        resolveSettings({ flags: {}, env: { SVC_BASE_URL: 'http://api.example.com' }, config });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/^SVC_BASE_URL: http:\/\/ is refused/);
  });
});

describe('base URL rules', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])('%s is loopback', (h) => {
    expect(isLoopbackHost(h)).toBe(true);
  });
  it.each(['128.0.0.1', '10.0.0.1', 'example.com', '127.0.0.1.example.com', 'localhost.evil.com', '127.256.0.1'])('%s is not loopback', (h) => {
    expect(isLoopbackHost(h)).toBe(false);
  });
  it('accepts https anywhere and strips the trailing slash', () => {
    expect(validateBaseUrl('https://api.example.com/v1/', 'x')).toBe('https://api.example.com/v1');
  });
  it.each([
    ['http://example.com', /http:\/\/ is refused/],
    ['ftp://127.0.0.1', /only https/],
    ['not a url', /is not a URL/],
    ['https://user:pw@example.com', /credentials in the URL/],
    ['https://example.com/?a=1', /query or fragment/],
  ])('refuses %s', (url, message) => {
    expect(() => validateBaseUrl(url, '--base-url')).toThrow(message);
  });
});

describe('the config store reads a changed file afresh', () => {
  it('a change written by another process (a new file renamed over it) is seen by the next read; an unchanged file is parsed once', async () => {
    const { mkdtemp, writeFile, rename, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { openConfigStore } = await import('../../src/config/store.js');
    const dir = await mkdtemp(join(tmpdir(), 'svc-config-cache-'));
    try {
      const store = await openConfigStore(dir);
      await store.updateProfile('local', () => ({ grant: 'g-1' }));
      expect(store.profile('local').grant).toBe('g-1');
      // Another process: the same way svc writes (a temporary file renamed over the config).
      const other = join(dir, 'other.tmp');
      await writeFile(other, JSON.stringify({ profiles: { local: { grant: 'g-2' } } }));
      await rename(other, store.path);
      expect(store.profile('local').grant).toBe('g-2');
      // Written in place (a person's editor): seen too.
      await writeFile(store.path, JSON.stringify({ profiles: { local: { grant: 'g-33' } } }));
      expect(store.profile('local').grant).toBe('g-33');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
