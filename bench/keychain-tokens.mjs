// Can the Secret Service hold a platform's access tokens? Writes tokens into a private
// gnome-keyring (its own D-Bus session bus, as test/e2e/secret-service.ts starts it) through
// @napi-rs/keyring, as svc's keychain backend does, and compares the cost of one write and
// one read with 10 entries stored against the same with BENCH_ENTRIES (default 4,000),
// measured in the same run. Needs dbus-daemon and gnome-keyring-daemon (Debian: dbus,
// gnome-keyring); skipped with a note without them.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 4000);
const SAMPLE = Number(process.env.BENCH_SAMPLE ?? 40);

if (spawnSync('sh', ['-c', 'command -v dbus-daemon && command -v gnome-keyring-daemon'], { stdio: 'ignore' }).status !== 0) {
  console.log('keychain-tokens: skipped (needs dbus-daemon and gnome-keyring-daemon: apt-get install dbus gnome-keyring)');
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-keyring-'));
const children = [];
const cleanup = () => {
  for (const child of children) child.kill();
  rmSync(dir, { recursive: true, force: true });
};
try {
  const address = await startSecretService(dir);
  process.env.DBUS_SESSION_BUS_ADDRESS = address;
  const { AsyncEntry } = await import('@napi-rs/keyring');
  const token = () => JSON.stringify({ write_receipts: { access_token: randomBytes(32).toString('base64url'), token_type: 'Bearer', expires_at: new Date().toISOString(), scope: 'write_receipts' } });
  const entry = (i) => new AsyncEntry('svc-bench', `local/token/grant-${i}`, { linux: { store: 'secret-service' } });
  let stored = 0;
  // Adds entries up to `upTo`, printing the mean cost of a new entry for every step of 250.
  const fill = async (upTo) => {
    let stepStart = performance.now();
    for (; stored < upTo; stored++) {
      try {
        await entry(stored).setPassword(token());
      } catch (error) {
        return `the keychain refused entry ${stored + 1}: ${error.message.split('.')[0]}`;
      }
      // Each entry holds a D-Bus connection until it is collected; collect as a long run would.
      if (stored % 50 === 49) globalThis.gc?.();
      if ((stored + 1) % 250 === 0) {
        console.log(`  entries ${stored + 1 - 249}–${stored + 1}: ${((performance.now() - stepStart) / 250).toFixed(1)} ms a write`);
        stepStart = performance.now();
      }
    }
    return undefined;
  };
  // One write and one read of entries already there (a token renewed, a token used).
  const sample = async () => {
    let started = performance.now();
    for (let i = 0; i < SAMPLE; i++) await entry(i % 10).setPassword(token());
    const write = (performance.now() - started) / SAMPLE;
    started = performance.now();
    for (let i = 0; i < SAMPLE; i++) await entry(i % 10).getPassword();
    const read = (performance.now() - started) / SAMPLE;
    return { write, read };
  };
  console.log(`keychain-tokens: gnome-keyring through @napi-rs/keyring, up to ${ENTRIES} entries`);
  await fill(10);
  const small = await sample();
  console.log(`  with 10 stored: write ${small.write.toFixed(1)} ms, read ${small.read.toFixed(1)} ms`);
  const refused = await fill(ENTRIES);
  if (refused) console.log(`  ${refused}`);
  const large = await sample().catch((error) => ({ error }));
  if ('error' in large) console.log(`  with ${stored} stored: ${large.error.message.split('.')[0]}`);
  else {
    console.log(`  with ${stored} stored: write ${large.write.toFixed(1)} ms, read ${large.read.toFixed(1)} ms`);
    console.log(`  ratio (${stored} / 10): write ${(large.write / small.write).toFixed(1)}×, read ${(large.read / small.read).toFixed(1)}×`);
  }
} finally {
  cleanup();
}

async function startSecretService(root) {
  const runtime = join(root, 'runtime');
  mkdirSync(runtime, { recursive: true });
  chmodSync(runtime, 0o700);
  const config = join(root, 'session-bus.conf');
  writeFileSync(
    config,
    `<busconfig><type>session</type><listen>unix:dir=${root}</listen><auth>EXTERNAL</auth>` +
      '<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>',
  );
  const bus = spawn('dbus-daemon', [`--config-file=${config}`, '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(bus);
  const address = await new Promise((resolve, reject) => {
    let text = '';
    bus.stdout.on('data', (chunk) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end >= 0) resolve(text.slice(0, end).trim());
    });
    bus.once('exit', () => reject(new Error('dbus-daemon exited')));
  });
  const env = { PATH: process.env.PATH ?? '', HOME: join(root, 'home'), XDG_DATA_HOME: join(root, 'data'), XDG_RUNTIME_DIR: runtime, DBUS_SESSION_BUS_ADDRESS: address };
  const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
  keyring.stdin.end('\n');
  children.push(keyring);
  for (let attempt = 0; attempt < 100; attempt++) {
    const probe = spawnSync('secret-tool', ['search', '--all', 'service', 'svc-bench-readiness'], { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: address }, stdio: 'ignore' });
    if (probe.status === 0) return address;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('gnome-keyring-daemon did not come up');
}
