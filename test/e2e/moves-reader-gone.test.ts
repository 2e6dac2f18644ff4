// `svc credit-note accept A B C … | head -1` in a `set -o pipefail` script: the reader stops
// after the first line. svc used to end quietly with exit 0 at the closed pipe, leaving the
// other requests unmoved while the script took them as done. Now no move starts after it,
// svc exits 3 saying how far it got, and running the command again moves the rest.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { repoRoot, svcBin, svcEnv } from './helpers.js';
import { milkRequests, queueStatuses, useMerchant } from './merchant.js';

const { merchant, dirs } = useMerchant();

describe('moves into a reader that stops early', () => {
  it('accept of 8 requests | head -1: exit 3 naming how far it got; run again, all 8 ACCEPTED', async () => {
    const m = merchant();
    const ids = await milkRequests(m, 8);
    const dir = await dirs.make('svc-head-');
    await writeFile(join(dir, 'stderr'), '');
    const quoted = ['node', svcBin, 'credit-note', 'accept', ...ids].map((a) => `'${a}'`).join(' ');
    const script = `set -o pipefail; ${quoted} 2>'${dir}/stderr' </dev/null | head -1; echo "svc-exit=\${PIPESTATUS[0]}"`;
    const run = await execa('bash', ['-c', script], { env: svcEnv(m.home, m.env), extendEnv: false, cwd: repoRoot, reject: false, timeout: 120_000 });
    const stderr = await readFile(join(dir, 'stderr'), 'utf8');
    expect(run.stdout.split('\n')[0]).toBe(`${ids[0]} ACCEPTED`);
    expect(Number(/svc-exit=(\d+)/.exec(run.stdout)?.[1]), stderr).toBe(3);
    expect(stderr).toMatch(/standard output was closed after \d of 8 requests: \d+ (was|were) not moved to ACCEPTED/);
    expect(stderr).toContain('run the same command again');
    const cut = await queueStatuses(m);
    expect(ids.filter((id) => cut.get(id) === 'ACCEPTED').length).toBeLessThan(8);

    const again = await m.svc(['credit-note', 'accept', ...ids]);
    expect(again.exitCode, again.stderr).toBe(0);
    const after = await queueStatuses(m);
    expect(ids.map((id) => after.get(id))).toEqual(ids.map(() => 'ACCEPTED'));
  });
});
