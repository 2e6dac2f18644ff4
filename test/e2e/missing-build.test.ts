// A checkout not built, or run while a build replaces dist/ file by file: svc says so in
// two lines (what is missing, what to do), exit 1, not Node's stack trace.
import { cp, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

async function checkout(withDist: boolean): Promise<string> {
  const root = await dirs.make('svc-checkout-');
  await cp(join(repoRoot, 'bin'), join(root, 'bin'), { recursive: true });
  await cp(join(repoRoot, 'package.json'), join(root, 'package.json'));
  if (withDist) await cp(join(repoRoot, 'dist'), join(root, 'dist'), { recursive: true });
  else await mkdir(join(root, 'dist'));
  return root;
}

describe('a build that is missing or under way', () => {
  it('not built: says which build and to run npm run build, exit 1, no stack', async () => {
    const root = await checkout(false);
    const r = await execa('node', [join(root, 'bin', 'svc.js'), 'sandbox', 'outbox'], { reject: false });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(`error: svc's build in ${join(root, 'dist')} is missing a file (start.cjs)\nhint: run \`npm run build\` there, or run svc again once a build under way has finished`);
  });

  it('a file of the build gone (a rebuild under way): names it, exit 1, no stack', async () => {
    const root = await checkout(true);
    await rm(join(root, 'dist', 'main.cjs'));
    const r = await execa('node', [join(root, 'bin', 'svc.js'), 'sandbox', 'outbox'], { reject: false, env: { XDG_CACHE_HOME: await dirs.make('svc-cache-') } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`is missing a file (${join(root, 'dist', 'main.cjs')})`);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
