// The README's tour, run exactly as written: its first line (terminal 1) in the background,
// the rest (terminal 2) as one bash script, with `svc` on PATH, from the repository's
// directory, in a fresh home. A tour that fails for a newcomer fails here first.
// The tour's fixed ports (8787 for the sandbox, 8790 for the receiver) may be taken on the
// machine that runs the tests (by the reader's own tour, say): the test holds them itself
// and runs the tour, unchanged, on free ports given through SVC_SANDBOX_PORT,
// SVC_WEBHOOK_PORT and SVC_BASE_URL.
import { chmod, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSvcHome, repoRoot, svcBin, svcEnv, tempDirs } from './helpers.js';
import { requireTools } from './require-tools.js';

const dirs = tempDirs();
const held: Server[] = [];
afterAll(async () => {
  await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  await dirs.cleanup();
});

/** Listens on 127.0.0.1:port if it is free (as another program would), so the tour must not need it. */
async function hold(port: number): Promise<void> {
  const server = createServer();
  const ok = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (ok) held.push(server);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

async function tourBlock(): Promise<string[]> {
  const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## A tour'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README has no tour block');
  // Continuation lines belong to the line before them.
  return block.replace(/\\\n\s*/g, ' ').split('\n').filter((l) => l.trim() !== '');
}

/** docs/webhooks.md's development loop, as lines: the first starts the sandbox (terminal 1), the rest are terminal 2's. */
async function webhookLoopBlock(): Promise<string[]> {
  const guide = await readFile(join(repoRoot, 'docs', 'webhooks.md'), 'utf8');
  const block = /```sh\n([\s\S]*?)```/.exec(guide.slice(guide.indexOf('## The webhook development loop')))?.[1];
  if (!block) throw new Error('docs/webhooks.md has no development loop block');
  return block.split('\n').filter((l) => l.trim() !== '');
}

/** The environment of a machine with no D-Bus at all (SSH, a container): no session bus address, an empty runtime directory. */
function withoutDbus(env: Record<string, string>, runtime: string): Record<string, string> {
  const { DBUS_SESSION_BUS_ADDRESS: _bus, DISPLAY: _display, SVC_SECRET_STORE: _store, ...rest } = env;
  return { ...rest, XDG_RUNTIME_DIR: runtime };
}

/**
 * Runs the tour in a fresh home; returns terminal 2's output. `webhookLoop`: then, on the same
 * sandbox and home, docs/webhooks.md's development loop as written (a reader who follows the
 * guide after the tour), from a directory of its own for the body.json it writes.
 */
async function runTour(opts: { noDbus: boolean; webhookLoop?: boolean }) {
  const [first, ...rest] = await tourBlock();
  expect(first).toMatch(/^svc sandbox start/);
  const bin = await dirs.make('svc-tour-bin-');
  await writeFile(join(bin, 'svc'), `#!/bin/sh\nexec node ${svcBin} "$@"\n`);
  await chmod(join(bin, 'svc'), 0o755);
  const home = await makeSvcHome(dirs);
  await hold(8787);
  await hold(8790);
  const [sandboxPort, receiverPort] = [await freePort(), await freePort()];
  const base = {
    ...svcEnv(home),
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: await dirs.make('svc-tour-home-'),
    SVC_SANDBOX_PORT: String(sandboxPort),
    SVC_WEBHOOK_PORT: String(receiverPort),
    SVC_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
  };
  const env = opts.noDbus ? withoutDbus(base, await dirs.make('svc-tour-runtime-')) : base;

  const terminal1 = execa('bash', ['-c', first!], { env, extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore' });
  let sandboxOut = '';
  terminal1.stdout?.on('data', (c: Buffer) => (sandboxOut += c.toString()));
  try {
    for (const deadline = Date.now() + 20_000; !sandboxOut.includes('listening on'); ) {
      if (Date.now() > deadline || terminal1.exitCode !== null) throw new Error(`terminal 1 did not start the sandbox on port ${sandboxPort}:\n${sandboxOut}${String((await terminal1).stderr)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const script = join(bin, 'tour.sh');
    await writeFile(script, `set -euo pipefail\n${rest.join('\n')}\n`);
    const terminal2 = await execa('bash', ['-x', script], { env, extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore', timeout: 120_000 });
    expect(terminal2.exitCode, `${terminal2.stdout}\n${terminal2.stderr}`).toBe(0);
    // Every step did its part: devices got the receipt, the receiver heard both events, the credit note went out.
    expect(terminal2.stdout).toMatch(/DELIVERED/);
    expect(terminal2.stderr).toMatch(/issued to 3 devices of email alice@example.com/);
    expect(terminal2.stderr).toMatch(/credit note CN-R-2025-000871-1 issued to 3 devices/);
    // Both events, as the tour's comment says: the receiver subscribed before the return request was made.
    expect(terminal2.stderr).toContain('--> RETURN_REQUESTED');
    expect(terminal2.stderr).toContain('--> CREDIT_NOTE_CREATED');
    if (opts.webhookLoop) await runWebhookLoop(bin, env);
    return { home, env, stderr: terminal2.stderr };
  } finally {
    terminal1.kill('SIGTERM');
    await terminal1;
  }
}

/** The loop's terminal 2, as written, against the tour's sandbox (its terminal 1 line is the tour's). */
async function runWebhookLoop(bin: string, env: Record<string, string>): Promise<void> {
  const [first, ...rest] = await webhookLoopBlock();
  expect(first).toMatch(/^svc sandbox start --auto-approve/);
  // The block reads fixtures/ from the repository's directory, and writes body.json there.
  const work = await dirs.make('svc-loop-');
  await symlink(join(repoRoot, 'fixtures'), join(work, 'fixtures'));
  const script = join(bin, 'webhook-loop.sh');
  await writeFile(script, `set -euo pipefail\n${rest.join('\n')}\n`);
  const loop = await execa('bash', ['-x', script], { env, extendEnv: false, cwd: work, reject: false, stdin: 'ignore', timeout: 120_000 });
  expect(loop.exitCode, `${loop.stdout}\n${loop.stderr}`).toBe(0);
  expect(loop.stderr).toMatch(/issued to 3 devices of email alice@example.com/);
  expect(loop.stderr).toContain('--> RETURN_REQUESTED');
  expect(loop.stdout).toMatch(/^valid: signed at \S+$/m);
}

describe('the README tour', () => {
  it('runs as written on a fresh machine, and then docs/webhooks.md\'s development loop as written', async (ctx) => {
    const missing = requireTools(['jq']);
    if (missing) return ctx.skip(missing);
    await runTour({ noDbus: false, webhookLoop: true });
  }, 240_000);

  // SSH, a container, a CI runner: no keychain. The local profile is sandbox data, so svc
  // keeps its secrets in the private file by itself, and says so once.
  it('runs as written on a machine without D-Bus (no keychain), saying once where the secrets are', async () => {
    const { home, env, stderr } = await runTour({ noDbus: true });
    const notes = stderr.match(/^note: no usable OS keychain.*$/gm) ?? [];
    expect(notes, stderr).toHaveLength(1);
    expect(notes[0]).toContain(join(home.configDir, 'secrets.json'));
    expect(stderr).not.toContain('SVC_SECRET_STORE=file)');
    expect((await stat(join(home.configDir, 'secrets.json'))).mode & 0o777).toBe(0o600);
    // `auth status` reads local state and exits 0, naming where the secrets are.
    const status = await execa('node', [svcBin, 'auth', 'status'], { env, extendEnv: false, reject: false, stdin: 'ignore' });
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^secret store +private file .*secrets\.json/m);
    expect(status.stdout).toMatch(/^private-key +1 key pair of `svc keys`/m);
    expect(status.stderr).toBe('');
  }, 180_000);
});
