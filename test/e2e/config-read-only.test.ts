// A configuration directory svc cannot write to (a service's, mounted read-only): reading
// the Grants a login kept (authorizations.db) must not need a write. A WAL database cannot
// even be read there (SQLite writes its -shm file to read), so the Grants file keeps the
// rollback journal. As root the read runs as nobody; as anyone else, the directory is made
// read-only for them.
import { execFileSync } from 'node:child_process';
import { chmod, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSvcHome, runSvc, startSandbox, svcBin, svcEnv, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

describe('a read-only configuration directory', () => {
  it('grants list reads the Grants a login kept there', async () => {
    const home = await makeSvcHome(dirs);
    const sandbox = await startSandbox(['--auto-approve', '--companies', '3']);
    try {
      const env = { SVC_BASE_URL: sandbox.url };
      expect((await runSvc(['sandbox', 'login'], { home, env })).exitCode).toBe(0);
      expect(await readdir(home.configDir)).toContain('authorizations.db');
      const state = await dirs.make('svc-read-only-state-');
      const runEnv = svcEnv({ configDir: home.configDir, stateDir: state }, { ...env, HOME: state });
      let stdout: string;
      if (process.getuid?.() === 0) {
        // nobody may read the files and enter the directories, and write none of them.
        for (const dir of [home.configDir, state]) await chmod(dir, dir === state ? 0o777 : 0o755);
        for (const file of await readdir(home.configDir)) await chmod(join(home.configDir, file), 0o644);
        stdout = execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, svcBin, 'grants', 'list'], { env: runEnv, encoding: 'utf8' });
      } else {
        for (const file of await readdir(home.configDir)) await chmod(join(home.configDir, file), 0o400);
        await chmod(home.configDir, 0o500);
        try {
          stdout = execFileSync(process.execPath, [svcBin, 'grants', 'list'], { env: runEnv, encoding: 'utf8' });
        } finally {
          await chmod(home.configDir, 0o700);
        }
      }
      const rows = stdout.trim().split('\n');
      expect(rows).toHaveLength(3);
      expect(stdout).toContain('Example Retail Ltd');
      expect(stdout).toContain('Platform Shop 00003 GmbH');
    } finally {
      await sandbox.stop();
    }
  });
});
