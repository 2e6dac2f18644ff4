// `svc credit-note list` on a team database lists every colleague's credit notes: machine A
// issues one, machine B (which issued nothing) lists it, with the receipt, the amount and
// who issued it, as A's own list does; before, B is told the team's database has none yet.
import { userInfo, hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { useTeam } from './team.js';

const { skip, team } = useTeam('team_cn_list');

describe.skipIf(skip !== undefined)(`credit-note list on a team database${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it("B lists the credit note A issued, with who issued it; B's own list said none before", async () => {
    const { m, other, on } = team();
    const before = await on(other, ['credit-note', 'list']);
    expect(before.exitCode, before.stderr).toBe(0);
    expect(before.stderr).toContain("no credit notes in the team's database yet");

    // The receipt recorded in the team's database (sent from A), its request triggered on the sandbox.
    const sent = await on(m.home, ['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com', '--json']);
    expect(sent.exitCode, sent.stderr).toBe(0);
    const { serviceReceiptId } = JSON.parse(sent.stdout) as { serviceReceiptId: string };
    const id = (await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1'])).stdout.trim();
    const issued = await on(m.home, ['credit-note', 'issue', id, '--yes']);
    expect(issued.exitCode, issued.stderr).toBe(0);
    const creditNote = issued.stdout.trim();

    const lists = await Promise.all([m.home, other].map(async (home) => {
      const listed = await on(home, ['credit-note', 'list', '--json']);
      expect(listed.exitCode, listed.stderr).toBe(0);
      return JSON.parse(listed.stdout) as { serviceReceiptId: string; requestId: string; issuedBy: string | null; totalAmount: number }[];
    }));
    for (const listed of lists) {
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ serviceReceiptId: creditNote, requestId: id, issuedBy: `${userInfo().username}@${hostname()}` });
      expect(listed[0]!.totalAmount).toBeGreaterThan(0);
    }
  }, 120_000);
});
