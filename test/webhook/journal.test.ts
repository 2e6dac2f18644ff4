import { appendFile, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { bodyId } from '../../src/crypto/hash.js';
import {
  appendJournalLine,
  deliveryLine,
  deliveryLineText,
  JOURNAL_RETENTION_MS,
  nodeJournalFs,
  openJournal,
  processedLine,
  scanJournal,
  type JournalFs,
} from '../../src/webhook/journal.js';
import { NOW } from '../commands/receipts-setup.js';
import { readJournalFile } from './setup.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function journalPath(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-journal-'));
  dirs.push(dir);
  return join(dir, 'shop', 'webhooks', 'journal.ndjson');
}

const HEADERS = { 'content-type': 'application/json', 'x-service-signature': 't=1,v1=00' };
const body = (n: number) => Buffer.from(JSON.stringify({ event: 'RETURN_REQUESTED', data: { n } }));

/** The real file system, counting durable writes and slowing each down so that deliveries pile up behind it. */
function countingFs(opts: { syncDelayMs?: number; failAppends?: number } = {}) {
  const stats = { syncs: 0, durableBytes: 0, written: '' };
  let failures = opts.failAppends ?? 0;
  const fs: JournalFs = {
    async openAppend(path) {
      const file = await nodeJournalFs.openAppend(path);
      return {
        async appendDurably(data) {
          if (failures > 0) {
            failures -= 1;
            // Half a line reaches the disk before the failure, as after ENOSPC.
            await file.appendDurably(data.subarray(0, Math.floor(data.length / 2)));
            throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
          }
          stats.written += Buffer.from(data).toString('utf8');
          const covered = stats.written.length;
          await new Promise((resolve) => setTimeout(resolve, opts.syncDelayMs ?? 0));
          await file.appendDurably(data);
          stats.syncs += 1;
          stats.durableBytes = covered;
        },
        close: () => file.close(),
      };
    },
  };
  return { fs, stats };
}

describe('record', () => {
  it('writes one line per delivery: SHA-256 id, raw body as Base64, the headers, in a 0600 file', async () => {
    const path = await journalPath();
    const journal = await openJournal(path, { clock: fixedClock(NOW) });
    const raw = body(1);
    const { entry, duplicate } = await journal.record(raw, HEADERS, 'RETURN_REQUESTED');
    expect(duplicate).toBe(false);
    expect(entry).toEqual({ id: bodyId(raw), receivedAt: new Date(NOW).toISOString(), event: 'RETURN_REQUESTED' });

    // Durable before the promise resolved: read it before closing.
    const { deliveries } = await readJournalFile(path);
    expect(deliveries).toEqual([
      { type: 'delivery', id: bodyId(raw), receivedAt: new Date(NOW).toISOString(), event: 'RETURN_REQUESTED', headers: HEADERS, body: raw.toString('base64') },
    ]);
    expect(Buffer.from(deliveries[0]!.body, 'base64').equals(raw)).toBe(true);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(path, '..'))).mode & 0o777).toBe(0o700);
    await journal.close();
  });

  it('answers a body seen before as a duplicate without writing it again', async () => {
    const path = await journalPath();
    const journal = await openJournal(path, { clock: fixedClock(NOW) });
    const first = await journal.record(body(1), HEADERS, 'RETURN_REQUESTED');
    const again = await journal.record(body(1), { ...HEADERS, 'x-service-signature': 't=2,v1=11' }, 'RETURN_REQUESTED');
    expect(again).toEqual({ entry: first.entry, duplicate: true });
    expect((await readJournalFile(path)).deliveries).toHaveLength(1);
    await journal.close();
  });

  it('writes concurrent identical bodies once; both resolve after the write is durable', async () => {
    const path = await journalPath();
    const { fs, stats } = countingFs({ syncDelayMs: 20 });
    const journal = await openJournal(path, { clock: fixedClock(NOW), fs });
    const results = await Promise.all([journal.record(body(1), HEADERS, null), journal.record(body(1), HEADERS, null)]);
    expect(results.map((r) => r.duplicate).sort()).toEqual([false, true]);
    expect(stats.syncs).toBe(1);
    expect((await readJournalFile(path)).deliveries).toHaveLength(1);
    await journal.close();
  });
});

describe('a delivery line as text', () => {
  it('is exactly JSON.stringify of the line, whatever the body, headers and event hold', () => {
    // Written without the generic JSON scan of the Base64 body: the text must not differ by a byte.
    const odd = ['', 'plain', 'quote " and \\ backslash', 'tab\tnew\nline', '\u0000\u001f\u007f', 'é ü 漢字 🙂', '\ud800 lone', '\u2028\u2029', '</script>'];
    let checked = 0;
    for (let n = 0; n < 400; n++) {
      const raw = Buffer.from(Array.from({ length: (n * 37) % 3000 }, (_, i) => (i * 131 + n * 7) % 256));
      const headers: Record<string, string> = n % 3 === 0 ? {} : { 'content-type': odd[n % odd.length]!, 'x-service-signature': `t=${n},v1=${odd[(n + 1) % odd.length]}` };
      const event = n % 5 === 0 ? null : odd[n % odd.length]!;
      const entry = { id: bodyId(raw), receivedAt: new Date(NOW + n).toISOString(), event };
      expect(deliveryLineText(entry, raw, headers)).toBe(JSON.stringify(deliveryLine(entry, raw, headers)));
      checked++;
    }
    expect(checked).toBe(400);
  });
});

describe('the file underneath', () => {
  // O_DSYNC (Linux's value; Node does not export the flags /proc shows): each write returns
  // once it is as durable as a write followed by fdatasync(), in one trip to the thread pool.
  it.runIf(process.platform === 'linux')('appends through a descriptor opened O_WRONLY|O_APPEND|O_DSYNC, mode 0600', async () => {
    const path = await journalPath();
    await mkdir(join(path, '..'), { recursive: true });
    const file = await nodeJournalFs.openAppend(path);
    try {
      const fds = await readdir('/proc/self/fd');
      let flags: number | undefined;
      for (const fd of fds) {
        const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
        if (target === path) flags = Number.parseInt(/^flags:\s*([0-7]+)$/m.exec(await readFile(`/proc/self/fdinfo/${fd}`, 'utf8'))![1]!, 8);
      }
      expect(flags).toBeDefined();
      const O_WRONLY = 0o1;
      const O_APPEND = 0o2000;
      const O_DSYNC = 0o10000;
      expect(flags! & 0o3).toBe(O_WRONLY);
      expect(flags! & O_APPEND).toBe(O_APPEND);
      expect(flags! & O_DSYNC).toBe(O_DSYNC);
      await file.appendDurably(Buffer.from('{"a":1}\n'));
      await file.appendDurably(Buffer.from('{"b":2}\n'));
      expect(await readFile(path, 'utf8')).toBe('{"a":1}\n{"b":2}\n');
      expect((await stat(path)).mode & 0o777).toBe(0o600);
    } finally {
      await file.close();
    }
  });
});

describe('group commit', () => {
  it('batches deliveries that arrive during a write+fsync into the next one, and acknowledges none before its fsync', async () => {
    const path = await journalPath();
    const { fs, stats } = countingFs({ syncDelayMs: 15 });
    const journal = await openJournal(path, { clock: fixedClock(NOW), fs });
    const durableAtResolve: boolean[] = [];
    await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        await journal.record(body(i), HEADERS, 'RETURN_REQUESTED');
        // Its line is within what a finished fsync covered.
        durableAtResolve.push(stats.written.slice(0, stats.durableBytes).includes(bodyId(body(i))));
      }),
    );
    expect(durableAtResolve.every(Boolean)).toBe(true);
    expect((await readJournalFile(path)).deliveries).toHaveLength(100);
    // The first delivery goes alone; the other 99 wait behind it and share the next fsync(s).
    expect(stats.syncs).toBeLessThan(10);
    await journal.close();
  });

  it('fails the whole batch of a failed write, and keeps the torn half-line apart from the next lines', async () => {
    const path = await journalPath();
    const { fs } = countingFs({ failAppends: 1 });
    const journal = await openJournal(path, { clock: fixedClock(NOW), fs });
    await expect(journal.record(body(1), HEADERS, null)).rejects.toThrow('no space left');
    // Not remembered: the sender's retry is journalled, not taken for a duplicate.
    expect(await journal.record(body(1), HEADERS, null)).toMatchObject({ duplicate: false });
    await journal.record(body(2), HEADERS, null);
    await journal.close();

    const lines: string[] = [];
    const result = await scanJournal(path, (line) => lines.push(line.id));
    expect(lines).toEqual([bodyId(body(1)), bodyId(body(2))]);
    expect(result).toEqual({ tornTail: false });
  });
});

describe('reopening', () => {
  it('rebuilds the index: a body journalled before a restart is a duplicate, unprocessed ones come back once', async () => {
    const path = await journalPath();
    const first = await openJournal(path, { clock: fixedClock(NOW) });
    const a = await first.record(body(1), HEADERS, 'RETURN_REQUESTED');
    const b = await first.record(body(2), HEADERS, 'CREDIT_NOTE_CREATED');
    await first.markProcessed(a.entry.id, { ok: true });
    await first.close();

    const second = await openJournal(path, { clock: fixedClock(NOW + 1000) });
    expect(await second.record(body(1), HEADERS, null)).toEqual({ entry: { ...a.entry, processed: { ok: true, error: undefined } }, duplicate: true });
    const pending = second.takeUnprocessed();
    expect(pending.map((d) => d.entry)).toEqual([b.entry]);
    expect(pending[0]!.raw.equals(body(2))).toBe(true);
    expect(pending[0]!.headers).toEqual(HEADERS);
    // Handed over once: the bodies are released.
    expect(second.takeUnprocessed()).toEqual([]);
    await second.markProcessed(b.entry.id, { ok: false, error: 'cannot decrypt: no private key matches' });
    await second.close();

    const third = await openJournal(path, { clock: fixedClock(NOW + 2000) });
    expect(third.takeUnprocessed()).toEqual([]);
    await third.close();
    expect((await readJournalFile(path)).processed).toEqual([
      { type: 'processed', id: a.entry.id, at: new Date(NOW).toISOString(), ok: true },
      { type: 'processed', id: b.entry.id, at: new Date(NOW + 1000).toISOString(), ok: false, error: 'cannot decrypt: no private key matches' },
    ]);
  });

  it('starts a new line after a torn tail left by a crash mid-write', async () => {
    const path = await journalPath();
    const first = await openJournal(path, { clock: fixedClock(NOW) });
    await first.record(body(1), HEADERS, null);
    await first.close();
    await appendFile(path, '{"type":"delivery","id":"ab');

    const second = await openJournal(path, { clock: fixedClock(NOW) });
    await second.record(body(2), HEADERS, null);
    await second.close();
    const ids: string[] = [];
    expect(await scanJournal(path, (l) => ids.push(l.id))).toEqual({ tornTail: false });
    expect(ids).toEqual([bodyId(body(1)), bodyId(body(2))]);
  });

  it('compacts processed deliveries older than 30 days, and keeps deduplicating younger ones', async () => {
    const path = await journalPath();
    const clock = fixedClock(NOW);
    const first = await openJournal(path, { clock });
    const old = await first.record(body(1), HEADERS, null);
    await first.markProcessed(old.entry.id, { ok: true });
    const oldUnprocessed = await first.record(body(2), HEADERS, null);
    clock.advance(2 * 24 * 60 * 60 * 1000);
    const young = await first.record(body(3), HEADERS, null);
    await first.markProcessed(young.entry.id, { ok: true });
    await first.close();
    await appendFile(path, '{"type":"from-a-newer-svc","id":"x"}\n');

    clock.set(NOW + JOURNAL_RETENTION_MS + 1000);
    const second = await openJournal(path, { clock });
    expect((await second.record(body(3), HEADERS, null)).duplicate).toBe(true);
    expect((await second.record(body(1), HEADERS, null)).duplicate).toBe(false);
    expect(second.takeUnprocessed().map((d) => d.entry.id)).toEqual([oldUnprocessed.entry.id]);
    await second.close();

    const text = await readFile(path, 'utf8');
    expect(text).toContain('from-a-newer-svc');
    const { deliveries, processed } = await readJournalFile(path);
    expect(deliveries.map((d) => d.id)).toEqual([oldUnprocessed.entry.id, young.entry.id, old.entry.id]);
    expect(processed.map((p) => p.id)).toEqual([young.entry.id]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});

describe('appendJournalLine', () => {
  it('appends a durable line for another process, after a torn tail on a line of its own', async () => {
    const path = await journalPath();
    const journal = await openJournal(path, { clock: fixedClock(NOW) });
    const { entry } = await journal.record(body(1), HEADERS, null);
    await journal.close();
    await writeFile(path, `${await readFile(path, 'utf8')}{"torn`);
    await appendJournalLine(path, processedLine(entry.id, new Date(NOW).toISOString(), { ok: true }));
    const seen: string[] = [];
    expect(await scanJournal(path, (l) => seen.push(l.type))).toEqual({ tornTail: false });
    expect(seen).toEqual(['delivery', 'processed']);
  });
});
