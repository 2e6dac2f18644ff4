// Access tokens at a platform's scale (issue 25): one per Grant and scope in the profile's
// private token file, not in the secret store. Sixteen processes renewing tokens of sixteen
// Grants at once lose none of them, and a second round is served from the cache alone.
import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, tempDirs } from './helpers.js';
import { startMerchant, type Merchant } from './merchant.js';
import { cachedTokenRows, tokenFilePath } from './token-file.js';

const GRANTS = 16;

describe('the token file under parallel processes', () => {
  const dirs = tempDirs();
  let m: Merchant;
  beforeAll(async () => {
    m = await startMerchant(dirs, ['--companies', String(GRANTS)]);
  });
  afterAll(async () => {
    await m?.sandbox.stop();
    await dirs.cleanup();
  });
  const tokenRequests = () => (m.sandbox.stderr().match(/POST \/oauth2\/token 200/g) ?? []).length;

  it(`${GRANTS} processes getting the tokens of ${GRANTS} Grants at once lose none; a second round asks the service for none`, async () => {
    const grants = (await m.json<{ grant_id: string }[]>(['grants', 'list'])).map((g) => g.grant_id);
    expect(grants).toHaveLength(GRANTS);
    const round = () => Promise.all(grants.map((grant) => runSvc(['token', 'get', '--grant', grant, '--force'], { home: m.home, env: m.env, timeout: 60_000 })));

    const before = tokenRequests();
    const first = await round();
    for (const r of first) expect(r.exitCode, r.stderr).toBe(0);
    // The sandbox's stderr is a pipe of its own: its request lines may trail the answers.
    for (const deadline = Date.now() + 5_000; tokenRequests() - before < GRANTS && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
    expect(tokenRequests() - before).toBe(GRANTS);
    const rows = await cachedTokenRows(m.home);
    const printed = new Map(grants.map((grant, i) => [grant, first[i]!.stdout.trim()]));
    for (const grant of grants) expect(rows.find((r) => r.id === grant && r.slot === 'write_receipts')?.token.access_token, grant).toBe(printed.get(grant));
    expect(statSync(tokenFilePath(m.home)).mode & 0o777).toBe(0o600);

    const second = await Promise.all(grants.map((grant) => runSvc(['token', 'get', '--grant', grant], { home: m.home, env: m.env, timeout: 60_000 })));
    for (const [i, r] of second.entries()) expect(r.stdout.trim()).toBe(printed.get(grants[i]!));
    expect(tokenRequests() - before).toBe(GRANTS);
  }, 180_000);
});
