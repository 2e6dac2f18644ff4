// `svc __complete -- PATH SLOT` (hidden): the values shell completion offers for a flag
// (`--profile`) or an argument (`request-id`) of the command at PATH, one per line. Fixed
// lists come from src/completion/values.ts; live values from this machine only — config,
// the state directory, the embedded ledger — so it never makes a network call, and it loads
// nothing else (it runs at every <Tab>).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BUILTIN_PROFILES } from '../config/defaults.js';
import { rememberedRequests } from '../completion/cache.js';
import { slotValues, type LiveSource } from '../completion/values.js';
import { verbCanMove, type QueueVerb } from '../credit-notes/moves.js';
import type { Factory } from '../factory.js';
import { profileStateDir } from '../config/profile-dir.js';

export interface CompleteOptions {
  words: string[];
}

export async function run(opts: CompleteOptions, f: Factory): Promise<void> {
  const [path = '', slot = ''] = opts.words;
  const found = slotValues(path.trim(), slot);
  const values = found?.values ?? (found?.live ? await live(found.live, f, path.trim()).catch(() => []) : []);
  if (values.length > 0) f.io.stdout.write(`${values.join('\n')}\n`);
}

async function live(source: LiveSource, f: Factory, path: string): Promise<readonly string[]> {
  switch (source) {
    case 'profiles': {
      const config = await f.config();
      return [...new Set([...config.profileNames(), ...Object.keys(BUILTIN_PROFILES)])].sort();
    }
    case 'grants':
    case 'grant-selectors': {
      const { resolveProfileName } = await import('../config/settings.js');
      const held = (await f.config()).authorizations(resolveProfileName(f.globals, f.env).value);
      // Each with its company after a tab: zsh and fish show it beside the value, bash drops it.
      const described = (id: string, company: unknown) => (typeof company === 'string' && company !== '' ? `${id}\t${company.replace(/[\t\n\r]/g, ' ')}` : id);
      // A selector (--grant) is best a tax ID, what a person and bash can read; an ID where there is none.
      const selector = (id: string, taxId: unknown) => (source === 'grant-selectors' && typeof taxId === 'string' && /^[^\s\t]+$/.test(taxId) ? taxId : id);
      return [
        ...held.grants.map((g) => described(selector(g.grant_id, g.tax_id), g.company_legal_name)),
        ...(held.companies as { merchant_id?: string; company_legal_name?: unknown; tax_id?: unknown }[]).flatMap((c) => (c.merchant_id ? [described(selector(c.merchant_id, c.tax_id), c.company_legal_name)] : [])),
      ];
    }
    case 'request-ids':
      return requestIds(f, path);
    case 'receipt-ids':
      return receiptIds(f);
    case 'event-ids':
      return eventIds(profileStateDir(f, 'webhooks'));
    case 'subscription-ids': {
      const { readLocalSubscriptions } = await import('../webhook/subscriptions.js');
      return (await readLocalSubscriptions(f)).map((s) => s.id);
    }
  }
}

/** The verb of each command that takes a request ID: completion offers only the requests it can move. */
const VERBS: Readonly<Record<string, QueueVerb>> = {
  'credit-note show': 'show',
  'credit-note accept': 'accept',
  'credit-note reject': 'reject',
  'credit-note complete': 'complete',
  'credit-note status': 'status',
  'credit-note issue': 'issue',
};

/** The last poll's requests that the command at `path` can move (a customer's cancel: the PENDING ones). */
async function requestIds(f: Factory, path: string): Promise<readonly string[]> {
  const requests = await rememberedRequests(f);
  const verb = VERBS[path];
  const offered =
    path === 'sandbox trigger cancel'
      ? requests.filter((r) => r.status === 'PENDING')
      : verb === undefined || verb === 'show'
        ? requests
        : requests.filter((r) => r.status !== undefined && verbCanMove(verb, r.status));
  return offered.map((r) => r.requestId);
}

/**
 * The embedded ledger's receipts, newest first: each document number (what the customer reads
 * out, taken wherever a receipt is named) and each serviceReceiptId, each with the other after
 * a tab (zsh and fish show it; bash drops it). Nothing from a team's database (a network call).
 */
async function receiptIds(f: Factory): Promise<readonly string[]> {
  const { databaseUrlOf, profileDir } = await import('../config/profile-dir.js');
  if ((await databaseUrlOf(f)) !== undefined) return [];
  if (!existsSync(join(profileDir(f), 'ledger.db'))) return [];
  const ledger = await f.ledger();
  const receipts = await ledger.receipts();
  const numbered = receipts.flatMap((r) => {
    const number = r.templateRequest.documentNumber;
    return typeof number === 'string' && number !== '' ? [[number.replace(/[\t\n\r]/g, ' '), r.serviceReceiptId] as const] : [];
  });
  return [...numbered.map(([number, id]) => `${number}\t${id}`), ...receipts.map((r) => {
    const number = numbered.find(([, id]) => id === r.serviceReceiptId)?.[0];
    return number === undefined ? r.serviceReceiptId : `${r.serviceReceiptId}\t${number}`;
  })];
}

/** The journal's events, newest first, as the short IDs `webhook events` shows. */
async function eventIds(dir: string): Promise<readonly string[]> {
  const text = await readFile(join(dir, 'journal.ndjson'), 'utf8');
  const ids: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"type":"delivery"')) continue;
    const id = /"id":"([^"]+)"/.exec(line)?.[1];
    if (id !== undefined) ids.push(id.slice(0, 12));
  }
  return [...new Set(ids.reverse())].slice(0, 200);
}
