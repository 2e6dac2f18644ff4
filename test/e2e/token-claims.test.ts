// Renewal claims across real processes (issue 25): eight svc processes wanting the same
// Grant's token at once, none cached, make one token request between them and print the
// same token; the claim is the token file's, not a lock file per Grant.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, tempDirs } from './helpers.js';
import { startMerchant, type Merchant } from './merchant.js';

describe('renewal claims under parallel processes', () => {
  const dirs = tempDirs();
  let m: Merchant;
  beforeAll(async () => {
    m = await startMerchant(dirs, ['--companies', '3']);
  });
  afterAll(async () => {
    await m?.sandbox.stop();
    await dirs.cleanup();
  });
  const tokenRequests = () => (m.sandbox.stderr().match(/POST \/oauth2\/token 200/g) ?? []).length;

  it('eight processes wanting the same uncached token make one request and print the same token', async () => {
    const grant = (await m.json<{ grant_id: string }[]>(['grants', 'list'])).at(-1)!.grant_id;
    const before = tokenRequests();
    const runs = await Promise.all(Array.from({ length: 8 }, () => runSvc(['token', 'get', '--grant', grant], { home: m.home, env: m.env, timeout: 60_000 })));
    for (const r of runs) expect(r.exitCode, r.stderr).toBe(0);
    expect(new Set(runs.map((r) => r.stdout.trim())).size).toBe(1);
    await new Promise((r) => setTimeout(r, 500));
    expect(tokenRequests() - before).toBeLessThanOrEqual(1);
    // No lock file per Grant: the renewers' own locks only, gone with their processes.
    const locks = readdirSync(join(m.home.stateDir, 'locks')).filter((name) => name.startsWith('token-'));
    expect(locks).toEqual([]);
  }, 120_000);
});
