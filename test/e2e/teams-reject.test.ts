// A request is rejected once, and so is its reason (docs/return-queue.md "Rejection reasons"):
// machine A rejects with a reason; machine B rejecting it again with another reason is told it
// already was, with the first reason (when, by whom), and that its own was not recorded; `show`
// on both machines still has the first. The same on one machine without a team database. Where
// the reason is kept is said as it is: the team's database, or this machine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresSkipReason } from '../postgres-server.js';
import { tempDirs } from './helpers.js';
import { milkRequests } from './merchant.js';
import { startTeam, type Team } from './team.js';

const skip = postgresSkipReason();
const dirs = tempDirs();
let team: Team | undefined;

beforeAll(async () => {
  if (skip) return;
  team = await startTeam(dirs, 'team_reject');
}, 120_000);
afterAll(async () => {
  await team?.stop();
  await dirs.cleanup();
});

const t = () => team as Team;
const FIRST = 'item not damaged per photo';
const SECOND = 'third reason';
/** The line `show` prints for a kept reason: the first one, when, by whom, and where it is kept. */
const reasonLine = (where: string) => new RegExp(`^reason +${FIRST} \\(rejected \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d [^ ]+ by [^ ;]+@[^ ;]+; kept ${where}\\)$`, 'm');
/** The line of the second rejection: it already was, with the first reason, and the second not recorded. */
const againLine = (id: string) => new RegExp(`^${id} REJECTED \\(it already was: rejected [^,]+ by [^,]+, reason "${FIRST}"; the reason "${SECOND}" was not recorded\\)$`, 'm');

describe.skipIf(skip !== undefined)(`a request rejected twice keeps its first rejection${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('on a team database: B rejecting what A rejected is told so; show on both machines has A\'s reason, kept in the team\'s database', async () => {
    const { m, other, on } = t();
    const [id] = await milkRequests(m, 1);
    const first = await on(m.home, ['credit-note', 'reject', id!, '--reason', FIRST, '--yes']);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout.trim()).toBe(`${id} REJECTED`);

    const again = await on(other, ['credit-note', 'reject', id!, '--reason', SECOND, '--yes']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toMatch(againLine(id!));
    expect(again.stdout).not.toContain('nothing changed');

    for (const home of [m.home, other]) {
      const shown = await on(home, ['credit-note', 'show', id!]);
      expect(shown.exitCode, shown.stderr).toBe(0);
      expect(shown.stdout).toMatch(reasonLine("in the team's database"));
      expect(shown.stdout).not.toContain(SECOND);
      expect(shown.stdout).not.toContain('on this machine');
    }
  }, 120_000);

  it('on one machine without a team database: the same, kept on this machine only', async () => {
    const { m } = t();
    const [id] = await milkRequests(m, 1);
    await m.svc(['credit-note', 'reject', id!, '--reason', FIRST, '--yes']);
    const again = await m.svc(['credit-note', 'reject', id!, '--reason', SECOND, '--yes']);
    expect(again.stdout).toMatch(againLine(id!));
    const shown = await m.svc(['credit-note', 'show', id!]);
    expect(shown.stdout).toMatch(reasonLine('on this machine only'));
    expect(shown.stdout).not.toContain(SECOND);
  }, 120_000);
});
