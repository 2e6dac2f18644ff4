// `svc auth status --check` as a CI health check: it asks the service with the credentials
// the profile would use, and exits non-zero naming why when the profile cannot work.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/net-port.js';
import { makeSvcHome, repoRoot, runSvc } from './helpers.js';
import { useMerchant } from './merchant.js';

const { dirs, merchant } = useMerchant();

describe('auth status --check', () => {
  it('a logged-in profile: exit 0, the check says what the service accepted', async () => {
    const r = await runSvc(['auth', 'status', '--check', '--json'], { home: merchant().home, env: merchant().env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).check).toEqual({ ok: true, detail: expect.stringContaining('accepted a token of the Grant') });
  });

  it('API-key credentials from the environment: exit 0', async () => {
    const seed = JSON.parse(await readFile(join(repoRoot, 'fixtures', 'sandbox.json'), 'utf8')) as { companies: { apiKey: string }[] };
    const r = await runSvc(['auth', 'status', '--check'], { home: await makeSvcHome(dirs), env: { ...merchant().env, SVC_API_KEY: seed.companies[0]?.apiKey ?? '' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/check\s+ok: the service at \S+ accepted the API key/);
  });

  it('a profile that was never logged in: exit 4, naming the login (plain `auth status` exits 0)', async () => {
    const home = await makeSvcHome(dirs);
    expect((await runSvc(['auth', 'status'], { home, env: merchant().env })).exitCode).toBe(0);
    const r = await runSvc(['auth', 'status', '--check'], { home, env: merchant().env });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toMatch(/check\s+FAILED: .*svc auth login/);
  });

  it('a service that does not answer: exit 8', async () => {
    const r = await runSvc(['auth', 'status', '--check'], { home: merchant().home, env: { SVC_BASE_URL: `http://127.0.0.1:${await freeLoopbackPort()}` } });
    expect(r.exitCode).toBe(8);
    expect(r.stdout).toContain('check');
  });

  it('a revoked Grant: exit 4', async () => {
    const [grant] = await merchant().json<{ grant_id: string }[]>(['grants', 'list']);
    await merchant().svc(['sandbox', 'revoke', grant?.grant_id ?? '']);
    const r = await runSvc(['auth', 'status', '--check'], { home: merchant().home, env: merchant().env });
    expect(r.exitCode, r.stdout + r.stderr).toBe(4);
  });
});
