// `svc demo` is the README's first command: it must run start to finish on a fresh
// machine, touching neither the user's config nor their keychain.
import { readdir } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSvcHome, runSvc, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

describe('svc demo', () => {
  it('walks through every step on an embedded sandbox and exits 0', async () => {
    const home = await makeSvcHome(dirs);
    const result = await runSvc(['demo'], { home, timeout: 120_000 });
    expect(result.stderr).not.toMatch(/error:/);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    for (const step of [
      '$ svc config list',
      '$ svc auth login',
      '$ svc grants list --details',
      '$ svc keys generate --upload',
      '$ svc recipient resolve --email alice@example.com',
      '$ svc receipt send',
      '$ svc sandbox deliveries',
      '$ svc receipt email',
      '$ svc credit-note poll',
      "--note 'the carton leaks'",
      '$ svc credit-note issue',
      '--dry-run',
      '$ svc webhook listen',
      '$ svc credit-note poll --all-grants --all',
      '$ svc webhook events',
      '$ svc token validate',
      '$ svc sandbox clock advance 1h',
    ]) {
      expect(result.stdout).toContain(step);
    }
    expect(result.stderr).toMatch(/logged in to profile "local": 2 Grants/);
    // The batch: three NDJSON results.
    expect(result.stdout.match(/^\{"line":\d,"serviceReceiptId":"[^"]+"\}$/gm)).toHaveLength(3);
    // The re-run of `receipt send`: the same receipt, nothing sent again.
    expect(result.stderr).toMatch(/receipt \S+ of .+ was already issued as \S+ at \S+; nothing was sent again/);
    // The flaky link: two 503s, then the receipt issued (to her three devices) all the same.
    expect(result.stdout).toMatch(/\$ svc sandbox trigger outage --requests 2\nthe next 2 requests to the API are answered 503[^\n]*\n\n\$ svc receipt send --file \S+receipt-F\.json[^\n]*\n[0-9a-f-]{36}\n/);
    // Alice has three devices, and each could decrypt its copy.
    expect(result.stdout.match(/\tRECEIPT\t[^\t]+\tDELIVERED\tmatches/g)).toHaveLength(3);
    // The credit note reached the same three devices, and the request ended COMPLETED.
    expect(result.stdout.match(/\tCREDIT_NOTE\t[^\t]+\tDELIVERED\tmatches/g)).toHaveLength(3);
    expect(result.stdout).toMatch(/\tCOMPLETED\t/);
    // The ledger's list: both credit notes, newest first (the part, then the whole one), with receipt and amount.
    expect(result.stdout).toMatch(/\$ svc credit-note list\n(CN-\S+\tR-\S+\t\d+\.\d\d EUR\t[^\n]+\n){2}\n/);
    // The receiver got both events and decrypted them.
    expect(result.stderr).toMatch(/--> RETURN_REQUESTED +\w+ +request [0-9a-f-]{36} +receipt \S+ +1 item/);
    expect(result.stderr).toMatch(/--> CREDIT_NOTE_CREATED +\w+ +credit note \S+ +SERVICE, UBL_CREDIT_NOTE/);
    // Run as a service: the listener's readiness, read from its admin port.
    expect(result.stdout).toMatch(/\$ svc webhook listen --port \d+ --subscribe --admin-port \d+/);
    expect(result.stdout).toMatch(/\$ curl http:\/\/127\.0\.0\.1:\d+\/readyz\n\{"status":"ready"\}\nHTTP 200/);
    // Each step's output stays under its own `$ svc` line.
    const journal = result.stdout.split('$ svc webhook events\n')[1]?.split('\n\n')[0] ?? '';
    expect(journal).toMatch(/\tCREDIT_NOTE_CREATED\t.*\tprocessed\n[^\n]+\tRETURN_REQUESTED\t.*\tprocessed/);
    expect(result.stdout).toContain('\nvalid\n');
    // The way on is the README's tour: a plain `auth login` needs a browser the machine may not have.
    expect(result.stdout).toContain('Next: `svc sandbox start --auto-approve` in one terminal, then `svc sandbox login` in another');
    expect(result.stdout).not.toContain('then `svc auth login`');
    // The demo kept to its own temporary config and secrets.
    expect(await readdir(home.configDir)).toEqual([]);
    expect(await readdir(home.stateDir)).toEqual([]);
  });
});
