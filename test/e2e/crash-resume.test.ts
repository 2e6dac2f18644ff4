// "A re-run is always safe": `receipt send` and `credit-note issue` killed with SIGKILL at each
// step that talks to the service (docs/contributing.md#how-the-code-reads: crash points are named), then run again. A
// proxy in front of the sandbox holds the step's request — before the service sees it, or
// after the service answered it — until the kill. Afterwards the service holds exactly one
// document, and the ledger exactly that one with no submission left open.
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, svcBin, svcEnv, tempDirs, repoRoot } from './helpers.js';
import { startHoldProxy, type HoldOptions } from './hold-proxy.js';
import { readLedgers } from './ledger.js';
import { startMerchant, type Merchant } from './merchant.js';
import { decrypt, devicePrivateKeys } from './oracle.js';

const dirs = tempDirs();
let m: Merchant;

const EGGS = '4005555000104';
const MILK = '4001234567890';

beforeAll(async () => {
  m = await startMerchant(dirs);
});
afterAll(async () => {
  await m?.sandbox.stop();
  await dirs.cleanup();
});

/** The documents the sandbox holds, by the deliveries it made for them. */
async function serviceDocuments(kind: 'RECEIPT' | 'CREDIT_NOTE'): Promise<Set<string>> {
  const deliveries = await m.json<{ serviceReceiptId: string; kind: string }[]>(['sandbox', 'deliveries']);
  return new Set(deliveries.filter((d) => d.kind === kind).map((d) => d.serviceReceiptId));
}

/** Runs `svc ARGS` through a proxy that holds one request, and SIGKILLs it once that request is held. */
async function killAt(args: readonly string[], hold: HoldOptions): Promise<void> {
  const proxy = await startHoldProxy(m.sandbox.url, hold);
  try {
    const child = execa('node', [svcBin, ...args], {
      env: svcEnv(m.home, { SVC_BASE_URL: proxy.url }),
      extendEnv: false,
      cwd: repoRoot,
      reject: false,
      stdin: 'ignore',
    });
    const ended = child.then((r) => `svc ended before it was killed (exit ${r.exitCode}):\n${r.stderr}`);
    const outcome = await Promise.race([proxy.held.then(() => 'held'), ended]);
    expect(outcome).toBe('held');
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
  } finally {
    await proxy.close();
  }
}

const post = (path: string) => (method: string, url: string) => method === 'POST' && url.split('?')[0] === path;

const receiptSteps: [string, HoldOptions][] = [
  ['before the template', { hold: post('/receipt/template'), when: 'before' }],
  ['after the template', { hold: post('/recipient/resolve'), when: 'before' }],
  ['before the submission reached the service', { hold: post('/receipt/encrypted'), when: 'before' }],
  ['after the service accepted the submission, before the record', { hold: post('/receipt/encrypted'), when: 'after' }],
];

describe('receipt send, killed at each step and run again', () => {
  it.each(receiptSteps)('killed %s: one receipt on the service, the same one in the ledger', async (_step, hold) => {
    const file = await m.newReceiptFile();
    const args = ['receipt', 'send', '--file', file, '--email', 'alice@example.com'];
    const before = await serviceDocuments('RECEIPT');
    await killAt(args, hold);

    const rerun = await runSvc([...args, '--json'], { home: m.home, env: m.env });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    const { serviceReceiptId } = JSON.parse(rerun.stdout) as { serviceReceiptId: string };
    const added = [...(await serviceDocuments('RECEIPT'))].filter((id) => !before.has(id));
    expect(added).toEqual([serviceReceiptId]);

    const ledger = await readLedgers(m.home.stateDir);
    expect(ledger.open).toEqual([]);
    const { documentNumber } = JSON.parse(await readFile(file, 'utf8')) as { documentNumber: string };
    expect(ledger.receipts.filter((r) => r.documentNumber === documentNumber).map((r) => r.serviceReceiptId)).toEqual([serviceReceiptId]);

    // And once more: the finished command reports the same receipt and sends nothing.
    const again = await runSvc(args, { home: m.home, env: m.env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe(serviceReceiptId);
    expect(again.stderr).toContain('nothing was sent again');
    expect([...(await serviceDocuments('RECEIPT'))].filter((id) => !before.has(id))).toEqual([serviceReceiptId]);
  });

  it('the same document number with other content is refused (exit 7), nothing sent, saying what differs; --dry-run says the same', async () => {
    const file = await m.newReceiptFile();
    await m.svc(['receipt', 'send', '--file', file, '--email', 'alice@example.com']);
    const before = await serviceDocuments('RECEIPT');
    // The same file to another customer: the document is the same, the customer is not.
    const other = await runSvc(['receipt', 'send', '--file', file, '--email', 'bob@example.com'], { home: m.home, env: m.env });
    expect(other.exitCode, other.stderr).toBe(7);
    expect(other.stderr).toMatch(/receipt R-2025-000871-\d+ was already issued as \S+ to email alice@example\.com, the same document: this send names email bob@example\.com/);
    expect(other.stderr).not.toContain('another document');
    expect(other.stderr).toContain('svc receipt list');
    // Another file under the same number, to the same customer: the document differs.
    const changed = join(dirname(file), `changed-${basename(file)}`);
    const request = JSON.parse(await readFile(file, 'utf8')) as { products: { quantity: number }[] };
    request.products[0]!.quantity += 1;
    await writeFile(changed, JSON.stringify(request));
    const edited = await runSvc(['receipt', 'send', '--file', changed, '--email', 'alice@example.com'], { home: m.home, env: m.env });
    expect(edited.exitCode, edited.stderr).toBe(7);
    // Named by field: a file is not what differs, its products are.
    expect(edited.stderr).toMatch(/was already issued as \S+ to email alice@example\.com: another document: its field products differs/);
    // A dry run meets what a send would: the refusal, or the receipt reported again.
    const dry = await runSvc(['receipt', 'send', '--file', file, '--email', 'bob@example.com', '--dry-run'], { home: m.home, env: m.env });
    expect(dry.exitCode, dry.stderr).toBe(7);
    expect(dry.stderr).toContain('this send names email bob@example.com');
    const dryAgain = await runSvc(['receipt', 'send', '--file', file, '--email', 'alice@example.com', '--dry-run'], { home: m.home, env: m.env });
    expect(dryAgain.exitCode, dryAgain.stderr).toBe(0);
    expect(dryAgain.stderr).toMatch(/was already issued as \S+ at \S+: a send would report it again and send nothing/);
    expect(await serviceDocuments('RECEIPT')).toEqual(before);
    // The README tour's send again: the same file dated anew by --issue-date now differs in its date alone, which is said.
    const dated = await m.newReceiptFile();
    const send = () => runSvc(['receipt', 'send', '--file', dated, '--issue-date', 'now', '--email', 'alice@example.com'], { home: m.home, env: m.env });
    expect((await send()).exitCode).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const redated = await send();
    expect(redated.exitCode, redated.stderr).toBe(7);
    expect(redated.stderr).toMatch(/another document: its issueDate \(\S+ then, \S+ in this send; `--issue-date now` dates each send anew\)/);
  });

  it('a retry from a machine that never saw the first run (a fresh ledger) is reported as already issued (exit 7), never issued twice', async () => {
    const file = await m.newReceiptFile();
    const args = ['receipt', 'send', '--file', file, '--email', 'alice@example.com'];
    const before = await serviceDocuments('RECEIPT');
    await killAt(args, { hold: post('/receipt/encrypted'), when: 'after' });
    const [first] = [...(await serviceDocuments('RECEIPT'))].filter((id) => !before.has(id));
    expect(first).toBeDefined();

    // The same config and secrets (the same login), but none of the first run's state.
    const fresh = { ...m.home, stateDir: await dirs.make('svc-state-fresh-') };
    const retry = await runSvc(args, { home: fresh, env: m.env });
    expect(retry.exitCode, retry.stderr).toBe(7);
    expect(retry.stderr).toContain(`was already submitted as ${first}`);
    expect([...(await serviceDocuments('RECEIPT'))].filter((id) => !before.has(id))).toEqual([first]);

    // The first machine, run again, resumes its own submission and records that receipt.
    const resumed = await runSvc(args, { home: m.home, env: m.env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim()).toBe(first);
    expect((await readLedgers(m.home.stateDir)).open).toEqual([]);
  });
});

const creditNoteSteps: [string, HoldOptions][] = [
  ['before the template', { hold: post('/credit-note/template'), when: 'before' }],
  ['after the template', { hold: post('/recipient/resolve'), when: 'before' }],
  ['before the submission reached the service', { hold: post('/credit-note/encrypted'), when: 'before' }],
  ['after the service accepted the submission, before the record', { hold: post('/credit-note/encrypted'), when: 'after' }],
];

async function receiptWithReturn(item: string): Promise<{ serviceReceiptId: string; requestId: string }> {
  const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
  const { requestId } = await m.json<{ requestId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', item]);
  return { serviceReceiptId, requestId };
}

describe('credit-note issue, killed at each step and run again', () => {
  it.each(creditNoteSteps)('killed %s: one credit note on the service, the same one in the ledger', async (_step, hold) => {
    const { serviceReceiptId, requestId } = await receiptWithReturn(`${MILK}:2`);
    const before = await serviceDocuments('CREDIT_NOTE');
    await killAt(['credit-note', 'issue', requestId, '--yes'], hold);

    // Meanwhile the killed run's reservation counts: another return of the same milk is refused.
    const { requestId: second } = await m.json<{ requestId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${MILK}:1`]);
    const over = await runSvc(['credit-note', 'issue', second, '--yes'], { home: m.home, env: m.env });
    expect(over.exitCode, over.stderr).toBe(2);
    expect(over.stderr).toMatch(/quantity 1 is more than the 0 that can still be returned \(bought 2; 2 already credited by CN-R-2025-000871-\d+-1 \(being submitted\)/);

    const rerun = await runSvc(['credit-note', 'issue', requestId, '--yes'], { home: m.home, env: m.env });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    // The killed run named as a process of this machine: its pid, and where it ran.
    expect(rerun.stderr).toMatch(/resuming the submission of credit note CN-\S+ started since \S+ \(pid \d+ on this machine\)/);
    const creditNoteId = rerun.stdout.trim();
    expect([...(await serviceDocuments('CREDIT_NOTE'))].filter((id) => !before.has(id))).toEqual([creditNoteId]);

    const ledger = await readLedgers(m.home.stateDir);
    expect(ledger.open).toEqual([]);
    expect(ledger.creditNotes.filter((n) => n.parent === serviceReceiptId).map((n) => [n.serviceReceiptId, n.requestId])).toEqual([[creditNoteId, requestId]]);
  });

  it('--abandon-pending closes the killed run instead; the derived key still keeps the service from issuing a second', async () => {
    const { serviceReceiptId, requestId } = await receiptWithReturn(`${EGGS}:1`);
    const before = await serviceDocuments('CREDIT_NOTE');
    await killAt(['credit-note', 'issue', requestId, '--yes'], { hold: post('/credit-note/encrypted'), when: 'after' });
    const [first] = [...(await serviceDocuments('CREDIT_NOTE'))].filter((id) => !before.has(id));

    const abandoned = await runSvc(['credit-note', 'issue', requestId, '--yes', '--abandon-pending'], { home: m.home, env: m.env });
    expect(abandoned.stderr).toContain('abandoned the submission of credit note');
    expect(abandoned.exitCode, abandoned.stderr).toBe(7);
    expect(abandoned.stderr).toContain(`was already submitted as ${first}`);
    expect([...(await serviceDocuments('CREDIT_NOTE'))].filter((id) => !before.has(id))).toEqual([first]);
    expect((await readLedgers(m.home.stateDir)).open.filter((i) => i.subject === requestId)).toEqual([]);
    // Nothing recorded for it on this machine: the service's document is named in the error for the merchant to look up.
    expect((await readLedgers(m.home.stateDir)).creditNotes.filter((n) => n.parent === serviceReceiptId)).toEqual([]);
  });

  it('a killed run\'s credit note never goes out for a request closed meanwhile: reject refuses it (exit 7) while the submission is open; cancelled by the customer, the re-run sends nothing', async () => {
    const { requestId } = await receiptWithReturn(`${EGGS}:1`);
    const before = await serviceDocuments('CREDIT_NOTE');
    await killAt(['credit-note', 'issue', requestId, '--yes'], { hold: post('/credit-note/template'), when: 'before' });
    // --dry-run --json says so on stdout, like show's decision (a pipe into jq gets an object, not nothing).
    const dry = await m.json<{ requestId: string; checks: string; reason: string }>(['credit-note', 'issue', requestId, '--dry-run']);
    expect(dry).toMatchObject({ requestId, checks: 'not run', reason: expect.stringMatching(/^credit note CN-\S+ is being submitted/) });

    const rejected = await runSvc(['credit-note', 'reject', requestId, '--yes'], { home: m.home, env: m.env });
    expect(rejected.exitCode, rejected.stderr).toBe(7);
    expect(rejected.stderr).toMatch(/already has credit note CN-R-2025-000871-\d+-1 \(issued, or being submitted\)/);
    expect(rejected.stderr).toContain('--abandon-pending');
    expect((await m.json<{ status: string }>(['credit-note', 'show', requestId])).status).toBe('PENDING');

    await m.svc(['sandbox', 'trigger', 'cancel', requestId]);
    const rerun = await runSvc(['credit-note', 'issue', requestId, '--yes'], { home: m.home, env: m.env });
    expect(rerun.exitCode, rerun.stderr).toBe(7);
    expect(rerun.stderr).toContain(`return request ${requestId} is CANCELLED and its credit note`);
    expect(await serviceDocuments('CREDIT_NOTE')).toEqual(before);
    const abandoned = await runSvc(['credit-note', 'issue', requestId, '--yes', '--abandon-pending'], { home: m.home, env: m.env });
    expect(abandoned.stderr).toContain('abandoned the submission of credit note');
    expect((await readLedgers(m.home.stateDir)).open.filter((i) => i.subject === requestId)).toEqual([]);
    expect(await serviceDocuments('CREDIT_NOTE')).toEqual(before);
  });

  it('issue --complete killed after the service created the credit note: the hint show and reject print, run as printed, resumes it and completes the request (PENDING and ACCEPTED)', async () => {
    for (const accepted of [false, true]) {
      const { requestId } = await receiptWithReturn(`${EGGS}:1`);
      if (accepted) await m.svc(['credit-note', 'accept', requestId]);
      const before = await serviceDocuments('CREDIT_NOTE');
      await killAt(['credit-note', 'issue', requestId, '--complete', '--yes'], { hold: post('/credit-note/encrypted'), when: 'after' });
      const [created] = [...(await serviceDocuments('CREDIT_NOTE'))].filter((id) => !before.has(id));
      expect(created).toBeDefined();

      const shown = await runSvc(['credit-note', 'show', requestId], { home: m.home, env: m.env });
      expect(shown.exitCode, shown.stderr).toBe(0);
      const rejected = await runSvc(['credit-note', 'reject', requestId, '--yes'], { home: m.home, env: m.env });
      expect(rejected.exitCode, rejected.stderr).toBe(7);
      const hinted = (text: string) => [...text.replace(/\s+/g, ' ').matchAll(/`svc ([^`]+)`/g)].map((x) => x[1]!.split(' ')).filter((argv) => argv.includes(requestId) && !argv.includes('--abandon-pending'));
      const fromShow = hinted(shown.stdout + shown.stderr);
      expect(fromShow, shown.stdout + shown.stderr).toEqual([['credit-note', 'issue', requestId, '--complete']]);
      expect(hinted(rejected.stderr), rejected.stderr).toEqual(fromShow);

      const followed = await runSvc(fromShow[0]!, { home: m.home, env: m.env });
      expect(followed.exitCode, followed.stderr).toBe(0);
      expect(followed.stderr).toContain('resuming the submission of credit note');
      expect(followed.stdout.trim()).toBe(created);
      expect((await m.json<{ status: string }>(['credit-note', 'show', requestId])).status).toBe('COMPLETED');
      expect([...(await serviceDocuments('CREDIT_NOTE'))].filter((id) => !before.has(id))).toEqual([created]);
    }
  }, 120_000);

  /** The moves the sandbox made of a request, in order, as its own log says them. */
  const movesOf = (requestId: string) => [...m.sandbox.stderr().matchAll(new RegExp(`return request ${requestId}: ([A-Z_]+)$`, 'gm'))].map((x) => x[1]);

  /** What each device of the customer decrypts of a credit note: its lines (product, quantity) and the amount payable. */
  async function decryptedCreditNote(serviceReceiptId: string): Promise<{ lines: [string, number][]; payable: number }[]> {
    const deliveries = await m.json<{ recipientId: string; entry: Record<string, string> }[]>(['sandbox', 'deliveries', serviceReceiptId]);
    const keys = await devicePrivateKeys(m.fixture.path);
    return deliveries.map((d) => {
      const note = decrypt(d.entry.encryptedCreditNote ?? '', d.entry.encryptedSymmetricKey ?? '', keys.get(d.recipientId) ?? '') as {
        creditNoteLine: { creditedQuantity: { value: number }; item: { sellersItemIdentification: { id: { value: string } } } }[];
        legalMonetaryTotal: { payableAmount: { value: number } };
      };
      return { lines: note.creditNoteLine.map((l) => [l.item.sellersItemIdentification.id.value, l.creditedQuantity.value] as [string, number]), payable: note.legalMonetaryTotal.payableAmount.value };
    });
  }

  const partSteps: [string, (requestId: string) => HoldOptions, (requestId: string) => RegExp][] = [
    [
      'after the service created the credit note, before the record',
      () => ({ hold: post('/credit-note/encrypted'), when: 'after' }),
      () => new RegExp(`resuming the issue begun at \\S+ for ${MILK} ×1, a part of the request: it is accepted in part \\(PARTIALLY_ACCEPTED\\), then completed`),
    ],
    [
      'after the credit note was recorded, before the accept in part reached the service',
      (requestId) => ({ hold: (method, url) => method === 'PATCH' && url.split('?')[0] === `/credit-note/requests/${requestId}/status`, when: 'before' }),
      (requestId) => new RegExp(`request ${requestId}: already credited by CN-\\S+ \\(issued here on \\S+\\); accepted in part for ${MILK} ×1, as it was credited; completed`),
    ],
  ];

  it.each(partSteps)('issue --item --complete of a PENDING request killed %s: `issue ID --complete` carries on with the part (accepted in part, that part credited); another --item is refused', async (_step, hold, said) => {
    // Two milks and the eggs asked back; one milk is credited.
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const { requestId } = await m.json<{ requestId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${MILK}:2`, '--item', `${EGGS}:1`]);
    const before = await serviceDocuments('CREDIT_NOTE');
    await killAt(['credit-note', 'issue', requestId, '--item', `${MILK}:1`, '--complete', '--yes'], hold(requestId));
    expect(movesOf(requestId)).toEqual([]);

    // Another part than the one begun: refused (exit 7) naming what was begun and how to go on; nothing moves.
    const other = await runSvc(['credit-note', 'issue', requestId, '--item', `${EGGS}:1`, '--complete', '--yes'], { home: m.home, env: m.env });
    expect(other.exitCode, other.stderr).toBe(7);
    expect(other.stderr).toContain(`for ${MILK} ×1`);
    expect(other.stderr).toContain(`--item ${EGGS}:1 names another part`);
    expect(other.stderr.replace(/\s+/g, ' ')).toContain(`\`svc credit-note issue ${requestId} --complete\` (without --item)`);
    expect(movesOf(requestId)).toEqual([]);
    expect((await m.json<{ status: string }>(['credit-note', 'show', requestId])).status).toBe('PENDING');

    // As the hints say, without --item: the part begun, and said so.
    const resumed = await runSvc(['credit-note', 'issue', requestId, '--complete', '--yes'], { home: m.home, env: m.env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr.replace(/\s+/g, ' ')).toMatch(said(requestId));
    const creditNoteId = resumed.stdout.trim();

    // The sandbox's own account: accepted in part, then completed — never accepted whole.
    expect(movesOf(requestId)).toEqual(['PARTIALLY_ACCEPTED', 'COMPLETED']);
    expect([...(await serviceDocuments('CREDIT_NOTE'))].filter((id) => !before.has(id))).toEqual([creditNoteId]);
    // One milk of two (2.55 for both): what every device decrypts, and what the ledger recorded.
    const decrypted = await decryptedCreditNote(creditNoteId);
    expect(decrypted.length).toBeGreaterThan(0);
    for (const d of decrypted) expect(d).toEqual({ lines: [[MILK, 1]], payable: 1.28 });
    const ledger = await readLedgers(m.home.stateDir);
    expect(ledger.open).toEqual([]);
    expect(ledger.creditNotes.filter((n) => n.requestId === requestId).map((n) => [n.serviceReceiptId, n.lines.map((l) => [l.productId, l.quantity])])).toEqual([[creditNoteId, [[MILK, 1]]]]);
  }, 60_000);

  it('a run stopped (SIGSTOP) while its submission is under way holds its reservation: another return is refused, never more credited than bought', async () => {
    const { serviceReceiptId, requestId } = await receiptWithReturn(`${EGGS}:1`);
    const before = await serviceDocuments('CREDIT_NOTE');
    const proxy = await startHoldProxy(m.sandbox.url, { hold: post('/credit-note/encrypted'), when: 'before' });
    const child = execa('node', [svcBin, 'credit-note', 'issue', requestId, '--yes'], {
      env: svcEnv(m.home, { SVC_BASE_URL: proxy.url }),
      extendEnv: false,
      cwd: repoRoot,
      reject: false,
      stdin: 'ignore',
    });
    try {
      await proxy.held;
      child.kill('SIGSTOP');
      const { requestId: other } = await m.json<{ requestId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${EGGS}:1`]);
      const second = await runSvc(['credit-note', 'issue', other, '--yes'], { home: m.home, env: m.env });
      expect(second.exitCode, second.stderr).toBe(2);
      expect(second.stderr).toMatch(/1 already credited by CN-R-2025-000871-\d+-1 \(being submitted\)/);
    } finally {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
      await child;
      await proxy.close();
    }
    // The stopped run, finished by running it again: one credit note for the one egg.
    const rerun = await runSvc(['credit-note', 'issue', requestId, '--yes'], { home: m.home, env: m.env });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect([...(await serviceDocuments('CREDIT_NOTE'))].filter((id) => !before.has(id))).toEqual([rerun.stdout.trim()]);
  });

  it('twelve issues against the last egg at once: exactly one credit note, the others refused (exit 2), the ledger equal to the service', async () => {
    const { serviceReceiptId } = await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com']);
    const requests: string[] = [];
    for (let i = 0; i < 12; i++) {
      requests.push((await m.json<{ requestId: string }>(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', `${EGGS}:1`])).requestId);
    }
    const before = await serviceDocuments('CREDIT_NOTE');
    const results = await Promise.all(requests.map((id) => runSvc(['credit-note', 'issue', id, '--yes'], { home: m.home, env: m.env, timeout: 90_000 })));
    const outcomes = results.map((r) => `exit ${r.exitCode}: ${r.stderr.split('\n').slice(-3).join(' | ')}`).join('\n');
    expect(results.filter((r) => r.exitCode === 0), outcomes).toHaveLength(1);
    expect(results.filter((r) => r.exitCode === 2), outcomes).toHaveLength(11);
    const issued = results.find((r) => r.exitCode === 0)?.stdout.trim();
    expect([...(await serviceDocuments('CREDIT_NOTE'))].filter((id) => !before.has(id))).toEqual([issued]);
    const ledger = await readLedgers(m.home.stateDir);
    expect(ledger.creditNotes.filter((n) => n.parent === serviceReceiptId).map((n) => n.serviceReceiptId)).toEqual([issued]);
    expect(ledger.open).toEqual([]);
  }, 120_000);
});
