// A state directory svc cannot write (a read-only mount, a directory of another user): said as
// what it is, with the setting that answers it, exit 2 — never "move it away", which would lose
// the subscription records of a listener run as a service.
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSvcHome, repoRoot, runSvc, svcBin, svcEnv, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

describe('a read-only state directory', () => {
  it('webhook listen: "the state directory … is read-only (EROFS)", SVC_STATE_DIR to set, exit 2, nothing to move away', async (ctx) => {
    const home = await makeSvcHome(dirs);
    const env = { SVC_WEBHOOK_SECRET: 'whsec_test_read_only_state_dir' };
    // A listener's first run makes the subscriptions file (and the rest of the profile's state).
    const first = execa('node', [svcBin, 'webhook', 'listen', '--port', '0'], { env: svcEnv(home, env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore' });
    let err = '';
    first.stderr?.on('data', (c: Buffer) => (err += c.toString()));
    for (const deadline = Date.now() + 20_000; !/listening on/.test(err); ) {
      if (Date.now() > deadline || first.exitCode !== null) throw new Error(`the listener did not start:\n${err}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    first.kill('SIGTERM');
    await first;

    // Root writes anywhere a mode forbids: a read-only bind mount instead.
    const root = process.getuid?.() === 0;
    let mounted = false;
    if (root) {
      try {
        execFileSync('mount', ['--bind', home.stateDir, home.stateDir], { stdio: 'pipe' });
        mounted = true;
        execFileSync('mount', ['-o', 'remount,bind,ro', home.stateDir], { stdio: 'pipe' });
      } catch (error) {
        if (mounted) execFileSync('umount', [home.stateDir]);
        ctx.skip(`running as root, and a read-only bind mount could not be made (${error instanceof Error ? error.message : String(error)})`);
      }
    } else {
      execFileSync('chmod', ['-R', 'a-w', home.stateDir]);
    }
    try {
      const r = await runSvc(['webhook', 'listen', '--port', '0'], { home, env });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(root ? 'is read-only (EROFS)' : 'is not writable by this user (EACCES)');
      expect(r.stderr).toContain(`the state directory ${home.stateDir}`);
      expect(r.stderr).toMatch(/hint: .*SVC_STATE_DIR/);
      expect(r.stderr).not.toContain('move it away');
      expect(r.stderr).not.toContain('SQLITE_CANTOPEN');
    } finally {
      if (mounted) execFileSync('umount', [home.stateDir]);
      else chmodSync(home.stateDir, 0o700);
      if (!root) execFileSync('chmod', ['-R', 'u+w', home.stateDir]);
    }
  }, 60_000);
});
