// `svc webhook events`: what the journal holds, newest first, with each delivery's
// processing state. Read-only, so it can run beside a listener.
import type { Factory } from '../../factory.js';
import { parseLimit } from '../../io/count.js';
import { writeList } from '../../io/output.js';
import { shownTime } from '../../io/time.js';
import { note, println } from '../../io/streams.js';
import { scanJournal } from '../../webhook/journal.js';
import { shortId } from '../../webhook/processor.js';
import { journalPathOf } from '../../webhook/subscriptions.js';
import { databaseUrlOf } from '../../config/profile-dir.js';

export interface EventsOptions {
  limit: string;
}

/** An element of `svc webhook events --json`. */
export interface JournalledEvent {
  id: string;
  event: string | null;
  receivedAt: string;
  processed: boolean;
  /** Why the last processing failed. */
  error?: string;
  /** Each `--forward-to` target that never took it: "URL: what it answered (N attempts)". */
  forwardFailed?: string[];
}

export async function run(opts: EventsOptions, f: Factory): Promise<void> {
  const limit = parseLimit(opts.limit);
  const databaseUrl = await databaseUrlOf(f);
  if (databaseUrl !== undefined) {
    const { listSharedDeliveries } = await import('../../webhook/pg-journal.js');
    return show(f, await listSharedDeliveries(databaseUrl, limit, f.env), 'the shared database');
  }
  const path = journalPathOf(f);
  const byId = new Map<string, JournalledEvent>();
  await scanJournal(path, (line) => {
    if (line.type === 'delivery') {
      if (!byId.has(line.id)) byId.set(line.id, { id: line.id, event: line.event, receivedAt: line.receivedAt, processed: false });
      return;
    }
    const event = byId.get(line.id);
    if (!event) return;
    event.processed = true;
    if (line.ok) delete event.error;
    else event.error = line.error ?? 'failed';
    if (line.forwardFailed === undefined || line.forwardFailed.length === 0) delete event.forwardFailed;
    else event.forwardFailed = line.forwardFailed;
  });
  // The journal is in arrival order.
  await show(f, [...byId.values()].reverse().slice(0, limit), path);
}

async function show(f: Factory, rows: JournalledEvent[], where: string): Promise<void> {
  if (rows.length === 0 && !f.io.json) return note(f.io, `no deliveries in ${where} yet: see \`svc webhook listen\``);
  await writeList(f.io, rows, [
    // Piped, every value whole (the ID a script passes on); on a terminal, the 12 hex digits `replay` takes.
    { header: 'ID', value: (r) => (f.io.stdoutIsTTY ? shortId(r.id) : r.id), id: 12 },
    { header: 'EVENT', value: (r) => r.event ?? '-' },
    { header: 'RECEIVED', value: (r) => shownTime(f.io, f.env, r.receivedAt), whole: true },
    { header: 'STATUS', value: (r) => statusOf(r, f.io.stdoutIsTTY), flex: true },
  ]);
  // On a terminal the cell says that it was not forwarded; where to and what the app answered
  // is under the table, whole (a URL and its answer do not fit a cell beside the others).
  if (!f.io.stdoutIsTTY || f.io.json) return;
  const { wrapText } = await import('../../io/wrap.js');
  for (const r of rows) {
    if (r.forwardFailed !== undefined) println(f.io, wrapText(`${shortId(r.id)} not forwarded to ${r.forwardFailed.join(', ')}`, f.io.columns, { hang: '  ' }));
  }
}

/** What a person reads of it: a forward that never got through is said, with what the app answered (on a terminal, under the table). */
function statusOf(r: JournalledEvent, terminal: boolean): string {
  if (!r.processed) return 'pending';
  const status = r.error === undefined ? 'processed' : `failed: ${r.error}`;
  if (r.forwardFailed === undefined) return status;
  return terminal ? `${status}; forward failed` : `${status}; not forwarded to ${r.forwardFailed.join(', ')}`;
}
