// Issue 5 end to end on the built binary: receipt send → a customer asks to return items →
// poll shows the request decrypted → accept → issue the credit note → complete. The sandbox
// then shows the credit note delivered to every device of the owner, and one
// CREDIT_NOTE_CREATED whose envelope decrypts with the integration's private key to a
// ReceiptEnvelope whose SERVICE document is the credit note the devices got.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runSvc, tempDirs } from './helpers.js';
import { startMerchant, type Merchant, type PolledItem } from './merchant.js';
import { decrypt, devicePrivateKeys } from './oracle.js';

const dirs = tempDirs();
let m: Merchant;
const customerFile = join(repoRoot, 'fixtures', 'customers', 'alice.json');
const svc = (args: string[]) => m.svc(args);
const json = <T>(args: string[]) => m.json<T>(args);

/** The integration's private keys, from the file backend of this test's config directory. */
async function integrationKeys(): Promise<string[]> {
  const secrets = JSON.parse(await readFile(join(m.home.configDir, 'secrets.json'), 'utf8')) as Record<string, string>;
  return Object.entries(secrets)
    .filter(([k]) => k.startsWith('local/private-key/'))
    .map(([, v]) => v);
}

beforeAll(async () => {
  m = await startMerchant(dirs);
});
afterAll(async () => {
  await m?.sandbox.stop();
  await dirs.cleanup();
});

describe('a return, from the customer to the credit note', () => {
  it('poll → accept → issue → complete, delivered to every device, one CREDIT_NOTE_CREATED', async () => {
    const { serviceReceiptId } = await json<{ serviceReceiptId: string }>([
      'receipt', 'send', '--file', m.receiptFile, '--email', 'alice@example.com', '--customer', customerFile,
    ]);
    const requested = await json<{ requestId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1', '--note', 'leaking carton']);

    const queue = await json<PolledItem[]>(['credit-note', 'poll']);
    const item = queue.find((q) => q.requestId === requested.requestId);
    expect(item?.status).toBe('PENDING');
    expect(item?.decryptError).toBeUndefined();
    expect(item?.returnRequest?.serviceReceiptId).toBe(serviceReceiptId);
    expect(item?.returnRequest?.lineItems).toEqual([expect.objectContaining({ productId: '4001234567890', quantity: 1 })]);

    await svc(['credit-note', 'accept', requested.requestId]);
    const issued = await json<{ serviceReceiptId: string }>(['credit-note', 'issue', requested.requestId, '--yes', '--complete']);
    const creditNoteId = issued.serviceReceiptId;

    const after = await json<PolledItem[]>(['credit-note', 'poll', '--all']);
    expect(after.find((q) => q.requestId === requested.requestId)?.status).toBe('COMPLETED');

    // Every device of the owner got the credit note.
    const deliveries = await json<{ recipientId: string; status: string; kind: string; entry: Record<string, string> }[]>(['sandbox', 'deliveries', creditNoteId]);
    expect(deliveries.map((d) => [d.kind, d.status])).toEqual([
      ['CREDIT_NOTE', 'DELIVERED'],
      ['CREDIT_NOTE', 'DELIVERED'],
      ['CREDIT_NOTE', 'DELIVERED'],
    ]);
    const devicePem = await devicePrivateKeys(m.fixture.path);
    const first = deliveries[0];
    const creditNote = decrypt(first?.entry.encryptedCreditNote ?? '', first?.entry.encryptedSymmetricKey ?? '', devicePem.get(first?.recipientId ?? '') ?? '');

    // Exactly one CREDIT_NOTE_CREATED for it, whose envelope opens with the integration's key.
    const events = (await (await fetch(`${m.sandbox.url}/sandbox/events?event=CREDIT_NOTE_CREATED`)).json()) as {
      data: { encryptedCreditNote: { serviceReceiptId: string; encryptedEnvelope: string; encryptedEnvelopeKey: string; envelopeVersion: number; finalHash: string } };
    }[];
    const created = events.filter((e) => e.data.encryptedCreditNote.serviceReceiptId === creditNoteId);
    expect(created).toHaveLength(1);
    const payload = created[0]?.data.encryptedCreditNote;
    const keys = await integrationKeys();
    expect(keys.length).toBeGreaterThan(0);
    const opened = keys.flatMap((pem) => {
      try {
        return [decrypt(payload?.encryptedEnvelope ?? '', payload?.encryptedEnvelopeKey ?? '', pem)];
      } catch {
        return [];
      }
    });
    expect(opened).toHaveLength(1);
    const envelope = opened[0] as { envelopeVersion: number; documents: Record<string, unknown> };
    expect(envelope.envelopeVersion).toBe(1);
    expect(envelope.documents.SERVICE).toEqual(creditNote);
    expect(Object.keys(envelope.documents).sort()).toEqual(['SERVICE', 'UBL_CREDIT_NOTE']); // Alice accepts UBL
  });

  it('a request encrypted before `svc keys rotate` still decrypts after it', async () => {
    const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const before = await json<{ requestId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId]);
    await svc(['keys', 'rotate']);
    const after = await json<{ requestId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId]);
    const queue = await json<PolledItem[]>(['credit-note', 'poll']);
    for (const id of [before.requestId, after.requestId]) {
      const item = queue.find((q) => q.requestId === id);
      expect(item?.decryptError, id).toBeUndefined();
      expect(item?.returnRequest?.serviceReceiptId).toBe(serviceReceiptId);
    }
  });

  it('refuses an over-return across two credit notes before sending anything', async () => {
    const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    // The eggs line has quantity 1: a first credit note takes it, a second asks for it again.
    const first = await json<{ requestId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4005555000104:1']);
    await svc(['credit-note', 'issue', first.requestId, '--yes']);
    const second = await json<{ requestId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4005555000104:1']);
    const refused = await runSvc(['credit-note', 'issue', second.requestId, '--yes', '--debug'], { home: m.home, env: m.env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/4005555000104/);
    expect(refused.stderr).not.toMatch(/> POST \S+\/credit-note\/(template|encrypted)/);
  });

  it("a customer's control characters never reach the terminal, in output or in errors", async () => {
    const { serviceReceiptId } = await json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const { requestId } = await json<{ requestId: string }>([
      'sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', 'EVIL\x1b[2J:1', '--note', 'hi\x1b]0;owned\x07',
    ]);
    const shown = await svc(['credit-note', 'show', requestId]);
    expect(shown.stdout).toMatch(/^note +hi\\x1b\]0;owned\\x07$/m);
    expect(shown.stdout).not.toContain('\x1b');
    // Not a product of the receipt: the error names it.
    const refused = await runSvc(['credit-note', 'issue', requestId, '--yes'], { home: m.home, env: m.env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('productId EVIL\\x1b[2J');
    expect(refused.stderr).not.toContain('\x1b');
  });
});
