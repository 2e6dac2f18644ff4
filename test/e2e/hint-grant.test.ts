// A command a hint prints about a return request of a company that is not the profile's
// default carries `--grant <its tax ID>`, so that pasted as printed it acts for that company
// even where no poll found the request under its Grant (the requests here are triggered
// straight on the sandbox, and acted on with --grant alone). Each hint is run as printed.
import { describe, expect, it } from 'vitest';
import { runSvc, svcEnv } from './helpers.js';
import { useMerchant, type Merchant } from './merchant.js';
import { MILK, requestsOn } from './queue-screen-kit.js';
import { requireTools } from './require-tools.js';
import { svcInTerminal } from './tmux.js';

const { merchant } = useMerchant();

/** Sample Foods GmbH, the fixture's second company; Example Retail Ltd (EU000000001) is the default. */
const FOODS = 'EU000000002';

/** The `svc …` commands quoted in `text` that name `requestId`, as argv without the leading `svc`. */
function printedCommands(text: string, requestId: string): string[][] {
  return [...text.matchAll(/`svc ([^`]+)`/g)].map((m) => m[1]!.trim().split(/\s+/)).filter((argv) => argv.includes(requestId));
}

/** Runs a printed command on a terminal, answers its question yes, and returns the screen once it exited. */
async function runAnsweringYes(m: Merchant, name: string, argv: readonly string[], question: string | RegExp): Promise<string> {
  const term = svcInTerminal(name, argv, svcEnv(m.home, m.env));
  try {
    await term.waitFor(question);
    term.keys('y', 'Enter');
    await term.waitFor(/SVC-EXIT=\d+/);
    return term.text();
  } finally {
    term.kill();
  }
}

async function statusUnder(m: Merchant, grant: string, requestId: string): Promise<string | undefined> {
  const all = await m.json<{ requestId: string; status: string }[]>(['credit-note', 'poll', '--grant', grant, '--all', '--no-decrypt']);
  return all.find((q) => q.requestId === requestId)?.status;
}

describe("hints about another company's request carry --grant", () => {
  it("show --grant: the issue command it prints names the company, and issues that company's credit note when run as printed", async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const [request] = (await requestsOn(m, [MILK], { args: ['--grant', 'foods'] })).ids as [string];
    const shown = await m.svc(['credit-note', 'show', request, '--grant', 'foods']);
    const [issue] = printedCommands(shown.stdout, request);
    expect(issue, shown.stdout).toEqual(['credit-note', 'issue', request, '--grant', FOODS]);

    const screen = await runAnsweringYes(m, 'hint-issue', issue!, 'from Sample Foods GmbH');
    expect(screen, screen).toContain('SVC-EXIT=0');

    // Credited and still PENDING: show's "mark it done" names issue --complete, which accepts it as it was credited and completes it.
    const credited = await m.svc(['credit-note', 'show', request, '--grant', 'foods']);
    expect(credited.stdout).toMatch(/already credited by CN-/);
    const [done, ...more] = printedCommands(credited.stdout, request);
    expect([done, ...more], credited.stdout).toEqual([['credit-note', 'issue', request, '--grant', FOODS, '--complete']]);
    const completed = await runAnsweringYes(m, 'hint-done', done!, 'Sample Foods GmbH');
    expect(completed, completed).toContain('SVC-EXIT=0');
    expect(await statusUnder(m, 'foods', request)).toBe('COMPLETED');
  }, 90_000);

  it('accept --partial and reject of a credited request: the show, accept and complete commands their hints print act for its company', async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const [request] = (await requestsOn(m, [MILK], { args: ['--grant', 'foods'] })).ids as [string];
    await m.svc(['credit-note', 'issue', request, '--grant', 'foods', '--yes']);

    const part = await runSvc(['credit-note', 'accept', request, '--grant', 'foods', '--item', MILK], { home: m.home, env: m.env });
    expect(part.exitCode, part.stderr).toBe(7);
    const [show] = printedCommands(part.stderr, request);
    expect(show, part.stderr).toEqual(['credit-note', 'show', request, '--grant', FOODS]);
    const shown = await runSvc(show!, { home: m.home, env: m.env });
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^company +Sample Foods GmbH$/m);

    // Credited and PENDING: marked done by issue --complete (it accepts it as it was credited; COMPLETED takes an accepted request).
    const rejected = await runSvc(['credit-note', 'reject', request, '--grant', 'foods', '--yes'], { home: m.home, env: m.env });
    expect(rejected.exitCode, rejected.stderr).toBe(7);
    const [done, ...more] = printedCommands(rejected.stderr, request);
    expect([done, ...more], rejected.stderr).toEqual([['credit-note', 'issue', request, '--grant', FOODS, '--complete']]);
    const screen = await runAnsweringYes(m, 'hint-complete', done!, 'Sample Foods GmbH');
    expect(screen, screen).toContain('SVC-EXIT=0');
    expect(await statusUnder(m, 'foods', request)).toBe('COMPLETED');
  }, 90_000);

  it("triage --all-grants: the issue command under the other company's request names it (none under the default's), and issues for it as printed", async (ctx) => {
    const missing = requireTools(['tmux']);
    if (missing) return ctx.skip(missing);
    const m = merchant();
    const [retail] = (await requestsOn(m, [MILK])).ids as [string];
    const [foods] = (await requestsOn(m, [MILK], { args: ['--grant', 'foods'] })).ids as [string];
    const term = svcInTerminal('hint-triage', ['credit-note', 'triage', '--all-grants'], svcEnv(m.home, m.env));
    let walked: string;
    try {
      // Every open request skipped, one after the other (a test before may have left one open).
      await term.waitFor(/── 1 of \d+ ──/);
      const total = Number(/── 1 of (\d+) ──/.exec(term.text())![1]);
      for (let i = 1; i <= total; i++) {
        await term.waitFor(new RegExp(`── ${i} of ${total} ──[\\s\\S]*\\? [0-9a-f]{8} [A-Z_]+:`));
        term.keys('s');
      }
      await term.waitFor('SVC-EXIT=');
      walked = term.text();
      expect(walked).toContain('SVC-EXIT=0');
    } finally {
      term.kill();
    }
    expect(printedCommands(walked, retail), walked).toEqual([['credit-note', 'issue', retail]]);
    const [issue] = printedCommands(walked, foods);
    expect(issue, walked).toEqual(['credit-note', 'issue', foods, '--grant', FOODS]);

    const screen = await runAnsweringYes(m, 'hint-triage-issue', issue!, 'from Sample Foods GmbH');
    expect(screen, screen).toContain('SVC-EXIT=0');
    const credited = await m.svc(['credit-note', 'show', foods, '--grant', 'foods']);
    expect(credited.stdout).toMatch(/credited by CN-/);
  }, 120_000);
});
