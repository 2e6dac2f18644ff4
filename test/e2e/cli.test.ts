// The built binary's surface: version, help, usage errors and config round trips.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { makeSvcHome, repoRoot, runSvc, svcBin, svcEnv, tempDirs, type SvcHome } from './helpers.js';

const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };

describe('svc', () => {
  it('--version prints the package version', async () => {
    const result = await runSvc(['--version']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  it('--help lists the commands', async () => {
    const result = await runSvc(['--help']);
    expect(result.exitCode).toBe(0);
    for (const noun of ['auth', 'grants', 'token', 'keys', 'recipient', 'receipt', 'credit-note', 'webhook', 'sandbox', 'config', 'completion', 'demo']) {
      expect(result.stdout).toMatch(new RegExp(`^\\s+${noun}\\b`, 'm'));
    }
  });

  it('an unknown flag exits 2 with a message on stderr and nothing on stdout', async () => {
    const result = await runSvc(['config', 'list', '--no-such-flag']);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--no-such-flag');
  });

  it('--help after a command that does not exist says so and exits 2, instead of showing the parent\'s help as if it held it', async () => {
    for (const args of [['receipt', 'show', 'R-1', '--help'], ['receipt', 'sned', '-h'], ['bogus', '--help'], ['--profile', 'receipt', 'receipt', 'show', '--help']]) {
      const result = await runSvc(args);
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stdout, args.join(' ')).toBe('');
      const word = args.includes('bogus') ? 'bogus' : args.includes('sned') ? 'sned' : 'show';
      expect(result.stderr, args.join(' ')).toContain(`unknown command '${word}'`);
    }
    expect((await runSvc(['receipt', 'sned', '--help'])).stderr).toContain('(Did you mean send?)');
    // --json: the same refusal as a JSON error.
    const json = await runSvc(['receipt', 'show', '--help', '--json']);
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stderr).error.message).toContain("unknown command 'show'");
    // Commands that exist keep their help, an option's value passed over on the way.
    for (const args of [['receipt', '--help'], ['receipt', 'send', '--help'], ['keys', 'show-remote', '-h'], ['--profile', 'x', 'sandbox', 'outbox', '--help'], ['help', 'receipt']]) {
      const result = await runSvc(args);
      expect(result.exitCode, args.join(' ')).toBe(0);
      expect(result.stdout, args.join(' ')).toMatch(/^Usage: svc /);
    }
  });

  it('a missing argument exits 2 with a message on stderr and nothing on stdout', async () => {
    const result = await runSvc(['config', 'get']);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/missing KEY: a setting/);
  });

  it.each(['--version', '--help', 'completion zsh', 'config list'])(
    'a reader that closes the pipe early (`svc %s | head`) ends it quietly with exit 0',
    async (line) => {
      const args = line.split(' ');
      const dirs = tempDirs();
      try {
        const child = execa('node', [svcBin, ...args], {
          env: svcEnv(await makeSvcHome(dirs)),
          extendEnv: false,
          cwd: repoRoot,
          reject: false,
          stdin: 'ignore',
        });
        child.stdout.destroy();
        const result = await child;
        expect(result.stderr).toBe('');
        expect(result.exitCode).toBe(0);
      } finally {
        await dirs.cleanup();
      }
    },
  );

  it('refuses http:// for a host that is not loopback (exit 2)', async () => {
    const result = await runSvc(['config', 'set', 'base-url', 'http://example.com']);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('http://');
  });
});

describe('svc config', () => {
  const dirs = tempDirs();
  let home: SvcHome;
  beforeAll(async () => {
    home = await makeSvcHome(dirs);
  });
  afterAll(() => dirs.cleanup());

  it('set, get and list --json round trip in one config directory', async () => {
    const set = await runSvc(['config', 'set', 'base-url', 'https://api.example.com/'], { home });
    expect(set.exitCode).toBe(0);
    expect(set.stdout).toBe('');

    const get = await runSvc(['config', 'get', 'base-url'], { home });
    expect(get.exitCode).toBe(0);
    expect(get.stdout).toBe('https://api.example.com\n');

    const list = await runSvc(['config', 'list', '--json'], { home });
    expect(list.exitCode).toBe(0);
    const body = JSON.parse(list.stdout) as { profile: string; settings: { key: string; value: string | null; source: string | null }[] };
    expect(body.profile).toBe('local');
    expect(body.settings).toContainEqual({ key: 'base-url', value: 'https://api.example.com', source: 'profile' });
  });

  it('keeps profiles apart', async () => {
    for (const [key, value] of [['base-url', 'https://staging.example.com'], ['grant', 'grant-of-staging']] as const) {
      const set = await runSvc(['--profile', 'staging', 'config', 'set', key, value], { home });
      expect(set.exitCode).toBe(0);
    }
    const other = await runSvc(['config', 'get', 'grant'], { home });
    expect(other.exitCode).toBe(6);
    expect(other.stdout).toBe('');
    const same = await runSvc(['config', 'get', 'grant'], { home, env: { SVC_PROFILE: 'staging' } });
    expect(same.stdout).toBe('grant-of-staging\n');
  });
});
