// The Grants and companies a login keeps live in a file written row by row
// (<configDir>/authorizations.db), not in config.json rewritten whole: at 10,000 Grants a
// company's new expiry, a login adding one Grant or a logout is a change of rows, and
// config.json (its profile settings) is not written unless its default changes. What an older
// svc kept in config.json is read as it is and handed over at the first write.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forgetAuthorizations, readAuthorizations, saveCompanies, saveGrants, setDefault, updateCompanyExpiry, type CompanyRecord } from '../../src/auth/profile.js';
import { openConfigStore } from '../../src/config/store.js';
import type { Grant, TokenRecord } from '../../src/contract/oauth.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function configDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'svc-authorizations-'));
  dirs.push(d);
  return d;
}

const grant = (i: number): Grant =>
  ({
    grant_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    grant_version: 1,
    issuer_company_id: `company-${i}`,
    company_legal_name: `Platform Shop ${i} Ltd`,
    tax_id: `EU${String(i).padStart(9, '0')}`,
    scopes: ['write_receipts'],
    store_ids: [],
    store_access_mode: 'ALL_STORES',
  }) as Grant;

const company = (i: number): CompanyRecord => ({
  merchant_id: `m-${i}`,
  company_legal_name: `Code Flow ${i} GmbH`,
  tax_id: `DE${i}`,
  customer_id: null,
  expires_at: '2026-11-28T10:00:00Z',
  refresh_expires_at: '2026-12-28T10:00:00Z',
  scope: 'write_receipts',
});

const identity = (path: string) => {
  const st = statSync(path, { bigint: true });
  return `${st.ino}:${st.mtimeNs}:${st.size}`;
};

describe('a profile of 10,000 Grants', () => {
  it('keeps them row by row: a new expiry, one more Grant or a logout leaves config.json as it was', async () => {
    const dir = configDir();
    const config = (await openConfigStore(dir));
    await config.updateProfile('local', (p) => ({ ...p, clientId: 'app_platform' }));
    const grants = Array.from({ length: 10_000 }, (_, i) => grant(i));
    const first = await saveGrants(config, 'local', grants);
    await saveCompanies(config, 'local', [company(1), company(2)]);
    expect(first.grant).toBe(grants[0]!.grant_id);
    const file = join(dir, 'config.json');
    // config.json holds the profile's settings and default, none of the Grants.
    expect(statSync(file).size).toBeLessThan(1000);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profiles: { local: { clientId: 'app_platform', grant: grants[0]!.grant_id } } });
    const before = identity(file);

    await updateCompanyExpiry(config, 'local', { ...company(2), expires_at: '2026-11-28T11:00:00Z', refresh_expires_at: '2027-01-01T00:00:00Z' } as unknown as TokenRecord);
    // Two more (a login of one company would make it the default, which config.json keeps).
    const extra = grant(10_001);
    await saveGrants(config, 'local', [grant(10_000), extra]);
    expect(identity(file)).toBe(before);

    // Read back by another process's store (a fresh open), in the order kept.
    const again = readAuthorizations((await openConfigStore(dir)), 'local');
    expect(again.grants).toHaveLength(10_002);
    expect(again.grants[0]!.grant_id).toBe(grants[0]!.grant_id);
    expect(again.grants.at(-1)!.grant_id).toBe(extra.grant_id);
    expect(again.companies.map((c) => [c.merchant_id, c.expires_at])).toEqual([
      ['m-1', '2026-11-28T10:00:00Z'],
      ['m-2', '2026-11-28T11:00:00Z'],
    ]);
    expect(again.grant).toBe(grants[0]!.grant_id);

    // A new Grant of a company replaces its earlier one, and the default moves with it.
    const successor = { ...grant(0), grant_id: '00000000-0000-4000-8000-aaaaaaaaaaaa' } as Grant;
    const saved = await saveGrants(config, 'local', [successor]);
    expect(saved).toEqual({ grant: successor.grant_id, superseded: [grants[0]!.grant_id] });
    const replaced = readAuthorizations(config, 'local');
    expect(replaced.grants).toHaveLength(10_002);
    expect(replaced.grants.some((g) => g.grant_id === grants[0]!.grant_id)).toBe(false);
    expect(replaced.grant).toBe(successor.grant_id);

    await forgetAuthorizations(config, 'local');
    expect(readAuthorizations((await openConfigStore(dir)), 'local')).toEqual({ grants: [], companies: [], grant: undefined });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profiles: { local: { clientId: 'app_platform' } } });
  });

  it('the file is private (0600), and holds no token', async () => {
    const dir = configDir();
    const config = (await openConfigStore(dir));
    await saveGrants(config, 'local', [grant(1)]);
    expect(statSync(join(dir, 'authorizations.db')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o077).toBe(0);
  });
});

describe('what an older svc kept in config.json', () => {
  it('is read as it is, and handed over whole at the first write; other profiles stay as they were until theirs', async () => {
    const dir = configDir();
    const file = join(dir, 'config.json');
    const legacy = {
      profiles: {
        local: { clientId: 'app_old', grants: [grant(1), grant(2)], companies: [company(7)], grant: grant(2).grant_id },
        staging: { baseUrl: 'https://staging.example', grants: [grant(3)], grant: grant(3).grant_id },
      },
    };
    writeFileSync(file, JSON.stringify(legacy));
    const config = (await openConfigStore(dir));
    expect(readAuthorizations(config, 'local').grants.map((g) => g.grant_id)).toEqual([grant(1).grant_id, grant(2).grant_id]);
    expect(existsSync(join(dir, 'authorizations.db'))).toBe(false);

    await setDefault(config, 'local', grant(1).grant_id);
    await saveGrants(config, 'local', [grant(4), grant(5)]);
    const kept = readAuthorizations((await openConfigStore(dir)), 'local');
    expect(kept.grants.map((g) => g.grant_id)).toEqual([1, 2, 4, 5].map((i) => grant(i).grant_id));
    expect(kept.companies.map((c) => c.merchant_id)).toEqual(['m-7']);
    expect(kept.grant).toBe(grant(1).grant_id);
    const after = JSON.parse(readFileSync(file, 'utf8')) as typeof legacy;
    expect(after.profiles.local).toEqual({ clientId: 'app_old', grant: grant(1).grant_id });
    // staging's are still config.json's, and read from there.
    expect(after.profiles.staging.grants).toHaveLength(1);
    expect(readAuthorizations((await openConfigStore(dir)), 'staging').grants.map((g) => g.grant_id)).toEqual([grant(3).grant_id]);
  });
});

describe('twelve processes adding Grants to one profile at once', () => {
  it('lose none', async () => {
    const dir = configDir();
    const script = `
      const { openConfigStore } = await import(${JSON.stringify(new URL('../../src/config/store.ts', import.meta.url).href)});
      const { saveGrants } = await import(${JSON.stringify(new URL('../../src/auth/profile.ts', import.meta.url).href)});
      const i = Number(process.argv[1]);
      const config = await openConfigStore(process.argv[2]);
      const grants = Array.from({ length: 50 }, (_, k) => ({ grant_id: 'g-' + i + '-' + k, grant_version: 1, issuer_company_id: 'c-' + i + '-' + k, company_legal_name: 'Shop', tax_id: 'T', scopes: [], store_ids: [], store_access_mode: 'ALL_STORES' }));
      await saveGrants(config, 'local', grants);
    `;
    // At once: each process a run of its own, started together.
    await Promise.all(Array.from({ length: 12 }, (_, i) => promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, String(i), dir])));
    expect(readAuthorizations((await openConfigStore(dir)), 'local').grants).toHaveLength(600);
  });
});
