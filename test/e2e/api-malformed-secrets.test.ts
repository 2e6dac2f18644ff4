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
