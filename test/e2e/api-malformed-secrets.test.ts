// `svc api` with a malformed header or field, as typed in a CI script: `-H "Authorization
// Bearer $TOKEN"` (no colon), `-H "X-API-Key=$KEY"`, `-f "client_secret:$SECRET"`. The usage
// error (exit 2) names the flag and what it expected, and never repeats the value: a CI log
// keeps stderr, and the value is a token or a key.
import { describe, expect, it } from 'vitest';
import { runSvc } from './helpers.js';

const SECRET = 'sk_live_5f3c9d2e8a714b06';

describe('svc api: a malformed header or field is refused without repeating its value', () => {
  for (const args of [
    ['-H', `Authorization Bearer ${SECRET}`],
    ['-H', `X-API-Key=${SECRET}`],
    ['-H', SECRET],
    ['-f', `client_secret:${SECRET}`],
    ['-F', `client_secret ${SECRET}`],
    ['-f', SECRET],
  ]) {
    it(`${args.join(' ')}`, async () => {
      for (const json of [[], ['--json']]) {
        // Nothing listens on port 9: the command must fail before any request.
        const run = await runSvc(['api', 'POST', '/oauth2/token', ...args, ...json], { env: { SVC_BASE_URL: 'http://127.0.0.1:9' } });
        expect(run.exitCode, run.stderr).toBe(2);
        expect(run.stdout).toBe('');
        expect(run.stderr).toMatch(/--(header|raw-field|field)/);
        expect(run.stderr).toMatch(/expected (key=value|\\?"Name: value)/);
        expect(run.stderr).not.toContain(SECRET);
      }
    });
  }
});

describe('svc api: a header name that is no HTTP token, or a value a header cannot carry, is refused before any request', () => {
  // Nothing listens on port 9: a request would fail with exit 8 ("cannot reach the service"); the API key gets it that far.
  const api = (header: string) => runSvc(['api', 'GET', '/credit-note', '-H', header], { env: { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_API_KEY: 'sk_sandbox_not_sent' } });

  it('"Bad Header: value" (a space in the name): exit 2 naming --header and the name', async () => {
    const run = await api('Bad Header: value');
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toContain('--header "Bad Header"');
    expect(run.stderr).not.toContain('cannot reach');
  });

  it.each(['X-Café: 1', 'X(a): 1', ': 1'])('%s: exit 2 naming --header', async (header) => {
    const run = await api(header);
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toContain('--header');
    expect(run.stderr).not.toContain('cannot reach');
  });

  it('a value with a line break (header injection) or a control character: exit 2 naming the header, never the value', async () => {
    for (const header of ['X-Trace: a\r\nX-Injected: 1', 'X-Trace: a\nb', 'X-Trace: a\u0001b', `X-Trace: ${SECRET}\u0007`]) {
      const run = await api(header);
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stderr).toContain('--header x-trace');
      expect(run.stderr).not.toContain('Injected');
      expect(run.stderr).not.toContain(SECRET);
    }
  });

  it('a credential typed with a space where the colon goes, and a colon inside the token: the value is never repeated', async () => {
    const run = await api(`Authorization Bearer ${SECRET}:x`);
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toContain('--header');
    expect(run.stderr).not.toContain(SECRET);
  });
});
