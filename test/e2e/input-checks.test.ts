// Input checks on the built binary: a JSON file nested 100,000 deep or holding a lone
// surrogate is a usage error naming the field (exit 2), never "unexpected failure"; the
// sandbox refuses the same bodies with 400 validation_failed; bounded durations.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, startSandbox, tempDirs, type SandboxProcess } from './helpers.js';

const dirs = tempDirs();
let sandbox: SandboxProcess;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.stop();
  await dirs.cleanup();
});

describe('JSON input limits', () => {
  it('receipt send --file nested 100,000 deep: exit 2 naming the limit, nothing sent', async () => {
    const file = join(await dirs.make('svc-input-'), 'deep.json');
    await writeFile(file, `{"products":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const result = await runSvc(['receipt', 'send', '--file', file, '--email', 'alice@example.com'], { env: { SVC_BASE_URL: 'http://127.0.0.1:9' } });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toContain('nests deeper than 64 levels');
    expect(result.stderr).not.toContain('unexpected failure');
  });

  it('a lone surrogate in a product name: exit 2 naming products.0.name', async () => {
    const file = join(await dirs.make('svc-input-'), 'surrogate.json');
    await writeFile(file, '{"documentNumber":"R-1","products":[{"name":"Milk \\ud800"}]}');
    const result = await runSvc(['receipt', 'send', '--file', file, '--email', 'alice@example.com'], { env: { SVC_BASE_URL: 'http://127.0.0.1:9' } });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/products\.0\.name: contains a lone surrogate/);
  });

  it('the sandbox answers both with 400 validation_failed naming the path', async () => {
    for (const [body, path] of [
      ['{"email":"a@example.com","x":"\\udfff"}', 'x'],
      [`{"email":"a@example.com","x":${'['.repeat(70)}${']'.repeat(70)}}`, 'x.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0'],
    ] as const) {
      const res = await fetch(`${sandbox.url}/recipient/resolve`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
      expect(res.status).toBe(400);
      const answer = (await res.json()) as { error: string; details: { path: string }[] };
      expect(answer.error).toBe('validation_failed');
      expect(answer.details[0]?.path).toBe(path);
    }
  });
});

describe('durations with bounds', () => {
  it('poll --watch --interval 3000000 and auth login --timeout 3000000: exit 2 naming the maximum', async () => {
    const poll = await runSvc(['credit-note', 'poll', '--watch', '--interval', '3000000'], { env: { SVC_BASE_URL: sandbox.url } });
    expect(poll.exitCode).toBe(2);
    expect(poll.stderr).toContain('--interval: "3000000" is longer than the maximum of 1d');
    const alone = await runSvc(['credit-note', 'poll', '--interval', '5'], { env: { SVC_BASE_URL: sandbox.url } });
    expect(alone.exitCode).toBe(2);
    expect(alone.stderr).toContain('--interval goes with --watch');
    const login = await runSvc(['auth', 'login', '--no-browser', '--timeout', '3000000'], { env: { SVC_BASE_URL: sandbox.url } });
    expect(login.exitCode).toBe(2);
    expect(login.stderr).toContain('--timeout: "3000000" is longer than the maximum of 1h');
    expect(login.stderr).not.toContain('TimeoutOverflowWarning');
  });
});

describe('profile names', () => {
  it('a mistyped --profile exits 2 with did-you-mean; __proto__ is no name; config set creates one', async () => {
    const { makeSvcHome } = await import('./helpers.js');
    const home = await makeSvcHome(dirs);
    const set = await runSvc(['config', 'set', 'base-url', 'https://api.example.com', '--profile', 'production'], { home });
    expect(set.exitCode, set.stderr).toBe(0);
    const typo = await runSvc(['--profile', 'prodution', 'grants', 'list'], { home });
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain('there is no profile "prodution"');
    expect(typo.stderr).toContain('did you mean "production"?');
    const envTypo = await runSvc(['grants', 'list'], { home, env: { SVC_PROFILE: 'prodution' } });
    expect(envTypo.exitCode).toBe(2);
    expect(envTypo.stderr).toContain('SVC_PROFILE: there is no profile "prodution"');
    expect(envTypo.stderr).toContain('did you mean "production"?');
    const proto = await runSvc(['--profile', '__proto__', 'config', 'set', 'base-url', 'https://x.example.com'], { home });
    expect(proto.exitCode).toBe(2);
    expect(proto.stderr).toContain('"__proto__" is not a profile name');
    const listed = await runSvc(['--profile', 'production', 'config', 'get', 'base-url'], { home });
    expect(listed.stdout.trim()).toBe('https://api.example.com');
  });

  it('a --profile that names no profile while SVC_BASE_URL is set: runs on the environment, with a note naming the profiles there are; config set still creates one', async () => {
    const { makeSvcHome } = await import('./helpers.js');
    const home = await makeSvcHome(dirs);
    const env = { SVC_BASE_URL: 'http://127.0.0.1:9' };
    expect((await runSvc(['config', 'set', 'base-url', 'https://api.example.com', '--profile', 'production'], { home })).exitCode).toBe(0);
    for (const args of [['config', 'list', '--profile', 'typoo'], ['auth', 'status', '--profile', 'typoo'], ['config', 'list', '--profile', 'typoo', '--json']]) {
      const run = await runSvc(args, { home, env });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr, args.join(' ')).toMatch(/^note: no profile "typoo" \(--profile\)/m);
      expect(run.stderr).toContain('profiles here: local, production, sandbox');
      expect(run.stderr).toContain('SVC_BASE_URL');
    }
    const fromEnv = await runSvc(['config', 'list'], { home, env: { ...env, SVC_PROFILE: 'typoo' } });
    expect(fromEnv.stderr).toMatch(/^note: no profile "typoo" \(SVC_PROFILE\)/m);
    // A profile that exists says nothing of the kind.
    const known = await runSvc(['config', 'list', '--profile', 'production'], { home, env });
    expect(known.exitCode).toBe(0);
    expect(known.stderr).not.toContain('no profile');
    // config set makes one, with or without SVC_BASE_URL; from then on it is known.
    const made = await runSvc(['config', 'set', 'client-id', 'app_new', '--profile', 'typoo'], { home, env });
    expect(made.exitCode, made.stderr).toBe(0);
    expect(made.stderr).not.toContain('no profile');
    const after = await runSvc(['config', 'list', '--profile', 'typoo'], { home, env });
    expect(after.stderr).not.toContain('no profile');
    expect(after.stdout).toMatch(/^client-id\tapp_new\tprofile$/m);
  });
});
