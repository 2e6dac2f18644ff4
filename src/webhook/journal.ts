// The webhook journal: an append-only NDJSON file per profile that makes a delivery durable
// before its sender hears 2xx (docs/interface-decisions.md#events-and-delivery-rules). Two kinds of line:
//
//   {"type":"delivery","id":<hex SHA-256 of the raw body>,"receivedAt":ISO,"event":NAME|null,
//    "headers":{"content-type":...,"x-service-signature":...},"body":<Base64 of the raw body>}
//   {"type":"processed","id":...,"at":ISO,"ok":true|false,"error"?:TEXT,"forwardFailed"?:[TEXT,...]}
//
// `forwardFailed` names each `--forward-to` target that never took the delivery ("URL: what
// it answered (N attempts)"); a later `svc webhook replay --forward-to URL` that it takes
// appends a line without that target.
//
// The body is the delivery exactly as signed, so it holds only ciphertext; decrypted data
// never reaches this file. The delivery id is the idempotency key of docs/interface-decisions.md#webhook-deliveries, so the
// index rebuilt from these lines deduplicates across restarts, and a delivery without a
// `processed` line is processed at the next start.
//
// Durability without a throughput cap: lines that arrive while a durable write is in flight
// wait and go out together in the next single one (group commit).
import { constants as fsConstants } from 'node:fs';
import { open as openFile, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { createInterface } from 'node:readline';
import * as z from '../contract/zod.js';
import type { Clock } from '../clock.js';
import { NonEmptyString, Sha256Hex } from '../contract/common.js';
import { bodyId } from '../crypto/hash.js';
import { fsErrorCode, privateDir, writePrivateFile } from '../store/private-file.js';

/** docs/interface-decisions.md#webhook-deliveries retries stop long before this; older processed entries may be compacted away. */
export const JOURNAL_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** The request headers worth keeping: what a forward or a later `verify` needs. */
export const JOURNALLED_HEADERS = ['content-type', 'x-service-signature'] as const;

const DeliveryLine = z.looseObject({
  type: z.literal('delivery'),
  id: Sha256Hex,
  receivedAt: NonEmptyString,
  event: z.string().nullable(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
});
export type DeliveryLine = z.infer<typeof DeliveryLine>;

const ProcessedLine = z.looseObject({
  type: z.literal('processed'),
  id: Sha256Hex,
  at: NonEmptyString,
  ok: z.boolean(),
  error: z.string().optional(),
  forwardFailed: z.array(z.string()).optional(),
});
export type ProcessedLine = z.infer<typeof ProcessedLine>;

export interface ProcessedOutcome {
  ok: boolean;
  /** Why processing failed (never plaintext). */
  error?: string | undefined;
  /** Each `--forward-to` target that never took it: "URL: what it answered (N attempts)". */
  forwardFailed?: readonly string[] | undefined;
}

export interface JournalEntry {
  id: string;
  receivedAt: string;
  /** The envelope's `event`, or null when the body is not a JSON object naming one. */
  event: string | null;
  /** The last `processed` line of the id; undefined while unprocessed. */
  processed?: ProcessedOutcome | undefined;
}

/** A delivery as the processor and a forward need it. */
export interface StoredDelivery {
  entry: JournalEntry;
  raw: Buffer;
  headers: Record<string, string>;
}

/** What the journal needs of the file system: a seam for counting fsyncs and failing writes. */
export interface JournalFile {
  /**
   * Appends `data` and resolves once it is on disk: the bytes and the file size that reaches
   * them, what fdatasync() guarantees. A failure may leave part of `data` written.
   */
  appendDurably(data: Uint8Array): Promise<void>;
  close(): Promise<void>;
}
export interface JournalFs {
  openAppend(path: string): Promise<JournalFile>;
}

// On Linux, O_DSYNC makes each write return only once it is as durable as a write followed by
// fdatasync(): one trip to libuv's thread pool a group commit instead of two (a write, then
// an fdatasync), each trip a wake-up of a pool thread and then of the event loop. Elsewhere
// the write is followed by a flush, which is stronger than O_DSYNC on macOS (libuv's
// fdatasync there is F_FULLFSYNC, through the disk's own cache) and all Windows has.
const { O_APPEND, O_CREAT, O_WRONLY } = fsConstants;
const O_DSYNC = process.platform === 'linux' ? (fsConstants as { O_DSYNC?: number }).O_DSYNC : undefined;

export const nodeJournalFs: JournalFs = {
  async openAppend(path) {
    const handle = await openFile(path, O_WRONLY | O_APPEND | O_CREAT | (O_DSYNC ?? 0), 0o600);
    return {
      async appendDurably(data) {
        let done = 0;
        // A regular file takes a write whole but for a full disk, which then fails the next.
        while (done < data.length) done += (await handle.write(data, done, data.length - done)).bytesWritten;
        if (O_DSYNC === undefined) await handle.datasync();
      },
      close: () => handle.close(),
    };
  },
};

export interface JournalOptions {
  clock: Clock;
  fs?: JournalFs;
  retentionMs?: number;
}

export interface RecordResult {
  entry: JournalEntry;
  /** The same body was journalled before (or is being journalled by a concurrent request). */
  duplicate: boolean;
}

export interface Journal {
  readonly path: string;
  /**
   * Resolves once the delivery is on disk (fsynced), or once an identical body already is;
   * rejects when it could not be written, and the sender should retry.
   */
  record(raw: Buffer, headers: Record<string, string>, event: string | null): Promise<RecordResult>;
  /** Appends a `processed` line; the entry shows it at once, the promise says when it is durable. */
  markProcessed(id: string, outcome: ProcessedOutcome): Promise<void>;
  /** Deliveries found unprocessed at open, oldest first; their bodies are released after this call. */
  takeUnprocessed(): StoredDelivery[];
  close(): Promise<void>;
}

export type JournalLine = DeliveryLine | ProcessedLine;

export interface ScanResult {
  /** The file ends inside a line: a write that never completed, hence never acknowledged. */
  tornTail: boolean;
}

/**
 * Reads every journal line in order; a missing file is an empty journal. Torn fragments and
 * lines of a newer svc are passed over.
 */
export async function scanJournal(path: string, visit: (line: JournalLine) => void): Promise<ScanResult> {
  const tornTail = await readLines(path, (text) => {
    const line = parseLine(text);
    if (line) visit(line);
  });
  return { tornTail };
}

/**
 * Calls `visit` with each non-empty line of the file as it is now (appends made meanwhile
 * are not read); resolves whether the file ends inside a line.
 */
async function readLines(path: string, visit: (text: string) => void): Promise<boolean> {
  const handle = await openIfExists(path);
  if (!handle) return false;
  try {
    const { size } = await handle.stat();
    if (size === 0) return false;
    const lines = createInterface({
      input: handle.createReadStream({ encoding: 'utf8', start: 0, end: size - 1, autoClose: false }),
      crlfDelay: Infinity,
    });
    for await (const text of lines) if (text !== '') visit(text);
    // At the size seen above: a line appended meanwhile does not make this one whole.
    return (await byteAt(handle, size - 1)) !== 0x0a;
  } finally {
    await handle.close();
  }
}

async function openIfExists(path: string): Promise<FileHandle | undefined> {
  try {
    return await openFile(path, 'r');
  } catch (error) {
    if (fsErrorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

async function byteAt(handle: FileHandle, position: number): Promise<number | undefined> {
  const { buffer, bytesRead } = await handle.read(Buffer.alloc(1), 0, 1, position);
  return bytesRead === 1 ? buffer[0] : undefined;
}

function parseLine(text: string): JournalLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = (value as { type?: unknown } | null)?.type === 'processed' ? ProcessedLine.safeParse(value) : DeliveryLine.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

export function deliveryLine(entry: JournalEntry, raw: Buffer, headers: Record<string, string>): DeliveryLine {
  return { type: 'delivery', id: entry.id, receivedAt: entry.receivedAt, event: entry.event, headers, body: raw.toString('base64') };
}

/**
 * `JSON.stringify(deliveryLine(...))`, the same text, without scanning the body's Base64 for
 * characters to escape (it has none): on the acknowledgement path, that scan of ~2.7 KB a
 * delivery cost more than the rest of the line.
 */
export function deliveryLineText(entry: JournalEntry, raw: Buffer, headers: Record<string, string>): string {
  return `{"type":"delivery","id":${JSON.stringify(entry.id)},"receivedAt":${JSON.stringify(entry.receivedAt)},"event":${JSON.stringify(entry.event)},"headers":${JSON.stringify(headers)},"body":"${raw.toString('base64')}"}`;
}

export function processedLine(id: string, at: string, outcome: ProcessedOutcome): ProcessedLine {
  return {
    type: 'processed',
    id,
    at,
    ok: outcome.ok,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    ...(outcome.forwardFailed === undefined || outcome.forwardFailed.length === 0 ? {} : { forwardFailed: [...outcome.forwardFailed] }),
  };
}

interface Waiter {
  data: string;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * One writer per journal file. A failed write may leave part of a line behind; the next
 * write starts with a newline, so that fragment stays a line of its own that readers skip,
 * instead of truncating (another process, `svc webhook replay`, may append too).
 */
function groupCommit(file: JournalFile, startsTorn: boolean) {
  let queue: Waiter[] = [];
  let torn = startsTorn;
  let running: Promise<void> | undefined;

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      const text = (torn ? '\n' : '') + batch.map((w) => w.data).join('');
      try {
        await file.appendDurably(Buffer.from(text, 'utf8'));
        torn = false;
        for (const w of batch) w.resolve();
      } catch (error) {
        torn = true;
        for (const w of batch) w.reject(error);
      }
    }
    running = undefined;
  }

  return {
    /** Appends one line, given as its JSON text. */
    append(text: string): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        queue.push({ data: `${text}\n`, resolve, reject });
        running ??= drain();
      });
    },
    async idle(): Promise<void> {
      while (running) await running;
    },
  };
}

/**
 * Opens (creating) the journal, rebuilds the index, and compacts away processed deliveries
 * older than the retention when there are any.
 */
export async function openJournal(path: string, opts: JournalOptions): Promise<Journal> {
  const fs = opts.fs ?? nodeJournalFs;
  const retentionMs = opts.retentionMs ?? JOURNAL_RETENTION_MS;
  await privateDir(dirname(path));

  const entries = new Map<string, JournalEntry>();
  const bodies = new Map<string, { raw: string; headers: Record<string, string> }>();
  const { tornTail } = await scanJournal(path, (line) => {
    if (line.type === 'delivery') {
      // A second line for the same body cannot come from this code; the first one stands.
      if (entries.has(line.id)) return;
      entries.set(line.id, { id: line.id, receivedAt: line.receivedAt, event: line.event });
      bodies.set(line.id, { raw: line.body, headers: line.headers });
      return;
    }
    const entry = entries.get(line.id);
    if (!entry) return;
    entry.processed = { ok: line.ok, error: line.error, forwardFailed: line.forwardFailed };
    bodies.delete(line.id);
  });

  const cutoff = opts.clock.now() - retentionMs;
  const expired = new Set([...entries.values()].filter((e) => e.processed && Date.parse(e.receivedAt) < cutoff).map((e) => e.id));
  let startsTorn = tornTail;
  if (expired.size > 0) {
    await compact(path, expired);
    for (const id of expired) entries.delete(id);
    startsTorn = false;
  }

  const existed = await stat(path).then(
    () => true,
    () => false,
  );
  const file = await fs.openAppend(path);
  // The first fsync of the file does not make its directory entry durable.
  if (!existed) await syncDirectory(dirname(path));
  const writer = groupCommit(file, startsTorn);
  const inFlight = new Map<string, Promise<JournalEntry>>();
  const iso = () => new Date(opts.clock.now()).toISOString();

  return {
    path,
    async record(raw, headers, event) {
      const id = bodyId(raw);
      const known = entries.get(id);
      if (known) return { entry: known, duplicate: true };
      const pending = inFlight.get(id);
      if (pending) return { entry: await pending, duplicate: true };

      const entry: JournalEntry = { id, receivedAt: iso(), event };
      const written = writer.append(deliveryLineText(entry, raw, headers)).then(() => {
        entries.set(id, entry);
        return entry;
      });
      inFlight.set(id, written);
      try {
        await written;
      } finally {
        inFlight.delete(id);
      }
      return { entry, duplicate: false };
    },
    markProcessed(id, outcome) {
      const entry = entries.get(id);
      if (entry) entry.processed = outcome;
      return writer.append(JSON.stringify(processedLine(id, iso(), outcome)));
    },
    takeUnprocessed() {
      const out: StoredDelivery[] = [];
      for (const [id, body] of bodies) {
        const entry = entries.get(id);
        if (entry && !entry.processed) out.push({ entry, raw: Buffer.from(body.raw, 'base64'), headers: body.headers });
      }
      bodies.clear();
      return out;
    },
    async close() {
      await writer.idle();
      await file.close();
    },
  };
}

/**
 * Rewrites the journal without the lines of `expired` ids, atomically. Lines this svc does
 * not understand are kept as they are; only torn fragments are dropped.
 */
async function compact(path: string, expired: ReadonlySet<string>): Promise<void> {
  const kept: string[] = [];
  await readLines(path, (text) => {
    let id: unknown;
    try {
      id = (JSON.parse(text) as { id?: unknown } | null)?.id;
    } catch {
      return;
    }
    if (typeof id !== 'string' || !expired.has(id)) kept.push(`${text}\n`);
  });
  const dir = dirname(path);
  await writePrivateFile(dir, basename(path), kept.join(''));
  await syncDirectory(dir);
}

/** Makes a file creation or rename in `dir` survive a power cut, where the platform can open directories. */
async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await openFile(dir, 'r');
    await handle.sync();
  } catch {
    // Windows cannot open a directory; the rename is as durable as the OS makes it there.
  } finally {
    await handle?.close();
  }
}

/**
 * One line appended durably by a process that does not hold the journal open (`svc webhook
 * replay`), beside a running listener: O_APPEND keeps both processes' lines whole.
 */
export async function appendJournalLine(path: string, line: JournalLine, fs: JournalFs = nodeJournalFs): Promise<void> {
  await privateDir(dirname(path));
  const tail = await readTail(path);
  const torn = tail !== undefined && tail !== 0x0a;
  const file = await fs.openAppend(path);
  try {
    await file.appendDurably(Buffer.from(`${torn ? '\n' : ''}${JSON.stringify(line)}\n`, 'utf8'));
  } finally {
    await file.close();
  }
}

/** The file's last byte; undefined for a missing or empty file. */
async function readTail(path: string): Promise<number | undefined> {
  const handle = await openIfExists(path);
  if (!handle) return undefined;
  try {
    const { size } = await handle.stat();
    return size === 0 ? undefined : await byteAt(handle, size - 1);
  } finally {
    await handle.close();
  }
}
