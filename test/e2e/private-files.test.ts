// Every file svc creates under its config and state directories is its owner's alone: 0600
// files (the ledger, SQLite's -wal/-shm/-journal, locks and their holder files, journals,
// caches, secrets), 0700 directories. A tour of the commands that write, under umask 000 so
// that nothing relies on the user's umask, then a walk of both directories.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, svcBin, svcEnv, tempDirs, type SvcHome } from './helpers.js';
import { startHoldProxy } from './hold-proxy.js';
import { startMerchant, type Merchant } from './merchant.js';

const dirs = tempDirs();
let m: Merchant;
let umask: number;

beforeAll(async () => {
  // Children inherit it: every svc process of this file creates its files under umask 000.
  umask = process.umask(0);
  m = await startMerchant(dirs);
});
afterAll(async () => {
  await m?.sandbox.stop();
  await dirs.cleanup();
  process.umask(umask);
});

/** Every path under `root` with its permission bits (the root itself included). */
interface Entry {
  path: string;
  dir: boolean;
  mode: string;
}

async function walk(root: string): Promise<Entry[]> {
  const found: Entry[] = [];
  const visit = async (path: string) => {
    const info = await stat(path).catch(() => undefined);
    // Gone between the listing and now (a temporary file renamed into place).
    if (!info) return;
    found.push({ path, dir: info.isDirectory(), mode: (info.mode & 0o777).toString(8) });
    if (info.isDirectory()) for (const name of await readdir(path)) await visit(join(path, name));
  };
  await visit(root);
  return found;
}

/** Runs svc in the background until `ready` matches its stderr, then stops it with SIGTERM. */
async function whileRunning(home: SvcHome, env: Record<string, string>, args: string[], ready: RegExp, during: () => Promise<void>) {
  const child = execa('node', [svcBin, ...args], { env: svcEnv(home, env), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore', forceKillAfterDelay: 5_000 });
  let output = '';
  child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
  try {
    for (const deadline = Date.now() + 20_000; !ready.test(output); ) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`svc ${args.join(' ')} did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await during();
    return () => output;
  } finally {
    child.kill('SIGTERM');
    await child;
  }
}

describe('private files', () => {
  it('a tour of the commands that write leaves only 0600 files and 0700 directories under the config and state dirs', async () => {
    await m.svc(['token', 'get']);
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', m.receiptFile, '--email', 'alice@example.com']);
    const trigger = async () => (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1'])).stdout.trim();
    const requestId = await trigger();
    await m.svc(['credit-note', 'poll']);
    await m.svc(['credit-note', 'accept', requestId]);
    await m.svc(['credit-note', 'issue', requestId, '--yes', '--complete']);
    await m.svc(['credit-note', 'reject', await trigger(), '--yes', '--reason', 'worn']);
    // Walked also while processes hold their files open: the listener (journal, its lock and
    // holder file), a watching poll (the ledger with its -wal and -shm), a sandbox keeping
    // its state in the state directory.
    const entries: Entry[] = [];
    const walkBoth = async () => {
      entries.push(...(await walk(m.home.configDir)), ...(await walk(m.home.stateDir)));
    };
    await whileRunning(m.home, m.env, ['webhook', 'listen', '--port', '0', '--subscribe', '--json'], /listening on http/, async () => {
      await trigger();
      await walkBoth();
    });
    await m.svc(['webhook', 'events']);
    // A receipt send killed while its submission is held: the ledger open (-wal, -shm), then
    // left as kill -9 leaves it, then resumed.
    const file = await m.newReceiptFile();
    const send = ['receipt', 'send', '--file', file, '--email', 'alice@example.com'];
    const proxy = await startHoldProxy(m.sandbox.url, { hold: (method, url) => method === 'POST' && url === '/receipt/encrypted', when: 'before' });
    try {
      const child = execa('node', [svcBin, ...send], { env: svcEnv(m.home, { SVC_BASE_URL: proxy.url }), extendEnv: false, cwd: repoRoot, reject: false, stdin: 'ignore' });
      await proxy.held;
      await walkBoth();
      child.kill('SIGKILL');
      await child;
    } finally {
      await proxy.close();
    }
    await walkBoth();
    await m.svc(send);
    await whileRunning(m.home, {}, ['sandbox', 'start', '--port', '0', '--state', join(m.home.stateDir, 'sandbox', 'kept')], /state: /, walkBoth);
    await walkBoth();

    const paths = new Set(entries.map((e) => e.path));
    for (const name of ['ledger.db', 'ledger.db-wal', 'ledger.db-shm', 'secrets.json', 'journal.ndjson', 'state.v8']) {
      expect([...paths].some((p) => p.endsWith(`/${name}`)), `${name} was seen`).toBe(true);
    }
    const loose = [...new Set(entries.filter((e) => e.mode !== (e.dir ? '700' : '600')).map((e) => `${e.mode} ${e.path}`))];
    expect(loose, [...new Set(entries.map((e) => `${e.mode} ${e.path}`))].join('\n')).toEqual([]);
  }, 120_000);
});
