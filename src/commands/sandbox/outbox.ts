import { OutboxMessageList } from '../../contract/accept-generated.js';
import type { OutboxMessage } from '../../contract/sandbox-inspect.js';
import type { Factory } from '../../factory.js';
import { writeList, type Column, type Tone } from '../../io/output.js';
import { shownTime } from '../../io/time.js';
import { sandboxRequest } from './request.js';

export type OutboxOptions = Record<string, never>;

function columns(f: Factory): readonly Column<OutboxMessage>[] {
  return [
  { header: 'MESSAGE ID', value: (m) => m.messageId, id: true },
  { header: 'TO', value: (m) => m.to, flex: true },
  { header: 'DOCUMENT', value: (m) => m.documentNumber },
  { header: 'CREATED', value: (m) => shownTime(f.io, f.env, m.createdAt), whole: true, drop: 1 },
  // Narrow: the size goes first, then the date; what the PDF lacks stays (Column.drop).
  { header: 'SIZE', value: (m) => String(m.size), align: 'right', whole: true, drop: 2 },
  // What the customer's PDF lacks: characters printed as � and texts cut short. Empty when
  // an older sandbox did not say.
  { header: 'REPLACED', value: (m) => count(m.replacedCharacters), align: 'right', tone: flagged },
  { header: 'CUT', value: (m) => count(m.truncatedTexts), align: 'right', tone: flagged },
  ];
}

function count(value: number | undefined): string {
  return value === undefined ? '' : String(value);
}

function flagged(value: string): Tone | undefined {
  return value !== '' && value !== '0' ? 'yellow' : undefined;
}

export async function run(_opts: OutboxOptions, f: Factory): Promise<void> {
  const messages = await sandboxRequest(f, { method: 'GET', path: '/sandbox/outbox', schema: OutboxMessageList });
  await writeList(f.io, messages, columns(f));
  if (!f.io.json && f.io.stdoutIsTTY && messages.length > 0) {
    const api = await f.api();
    // The ID as the table shows it: whole, or cut to a prefix that starts no other, which the sandbox serves too.
    f.io.stderr.write(`each PDF is at ${api.baseUrl}/sandbox/outbox/<MESSAGE ID>.pdf (an ID cut short above works too: it is a prefix no other message starts with)\n`);
  }
}
