// The queue screen's decisions (src/queue-screen/screen.ts) are the single commands' own
// runs: `show`, `accept` (whole, or in part with the part asked and recorded), `reject`
// (a reason asked, then its confirmation naming each document), `issue --complete` (its
// preview and confirmation, its ledger intent and Idempotency-Key) and `complete`. Each runs
// with the screen's streams, its stdout also kept, for the screen's status line (issue's only
// kept: its bare ID is a line for scripts).
import { Writable } from 'node:stream';
import { outcomeOf, outcomeText } from '../../credit-notes/outcome.js';
import { reasonProblem, reasonsKeptWhere } from '../../credit-notes/rejection.js';
import { inputOrCancel } from '../../io/prompter.js';
import { callerForRequests } from '../../credit-notes/request-grant.js';
import type { Factory } from '../../factory.js';
import { oneLine } from '../../io/output.js';
import type { IOStreams } from '../../io/streams.js';
import type { Decisions } from '../../queue-screen/screen.js';
import { run as issue } from './issue.js';
import { run as show } from './show.js';
import { accept, complete, confirmAccept, reject } from './status.js';

export function screenDecisions(f: Factory): Decisions {
  /** `f`, with stdout written through and kept: the lines a command printed are its result. */
  const teed = (shown = true) => {
    let text = '';
    const stdout = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        text += String(chunk);
        if (shown) f.io.stdout.write(chunk, done);
        else done();
      },
    });
    const g = withIo(f, { ...f.io, stdout });
    return { g, result: () => text.split('\n').map(oneLine).filter((l) => l.trim() !== '').join(' · ') };
  };
  const run = async (act: (g: Factory) => Promise<void>, shown = true) => {
    const { g, result } = teed(shown);
    await act(g);
    return result();
  };
  const readBack = async (requestId: string, move: () => Promise<string>) => {
    await move();
    return oneLine(outcomeText(requestId, await outcomeOf(f, await callerForRequests(f, [requestId]), requestId), { short: true }));
  };
  // What was typed at the last reason prompt of a reject that did not happen.
  let typedReason = '';
  return {
    async show(requestId, columns) {
      let text = '';
      const sink = new Writable({
        write(chunk: Buffer | string, _encoding, done) {
          text += String(chunk);
          done();
        },
      });
      // As `show` prints it on a terminal of the screen's width (wrapped to it), without colour.
      await show({ requestId, reveal: false }, withIo(f, { ...f.io, stdout: sink, stderr: sink, stdoutIsTTY: true, color: false, stdoutColor: false, columns }));
      return text;
    },
    accept: (requestIds) =>
      run(async (g) => {
        if (requestIds.length > 1) await confirmAccept(g, requestIds);
        await accept.run({ requestIds, partial: false }, g);
      }),
    acceptPart: (requestId) => run((g) => accept.run({ requestIds: [requestId], partial: true }, g)),
    reject: (requestIds) =>
      run(async (g) => {
        const which = requestIds.length === 1 ? 'it' : `these ${requestIds.length}`;
        // A reason typed and then declined at the question (n, Esc) is offered again, not lost.
        const reason = await inputOrCancel(
          g.prompter(),
          {
            message: `Why reject ${which}? (kept ${await reasonsKeptWhere(g)})`,
            flag: '--reason',
            ...(typedReason.trim() === '' ? {} : { default: typedReason }),
            validate: (v) => reasonProblem(v) ?? true,
            typed: (value) => {
              if (value !== '') typedReason = value;
            },
          },
          'cancelled: nothing was rejected',
        );
        typedReason = reason;
        await reject.run({ requestIds, reason }, g);
        typedReason = '';
      }),
    // The status line is what the service and the ledger say after it (the credit note's
    // document number, COMPLETED), not issue's stdout (a bare serviceReceiptId, for scripts),
    // which is not shown either while the decision has the terminal.
    issue: (requestId) => readBack(requestId, () => run((g) => issue({ requestId, complete: true }, g), false)),
    // `c` is "complete without a credit note": settled another way, as the key says.
    complete: (requestId) => readBack(requestId, () => run((g) => complete.run({ requestIds: [requestId], creditedElsewhere: true }, g))),
  };
}

/** The factory with other streams; everything else (the ledger, the API clients, the prompter on the terminal) shared. */
function withIo(f: Factory, io: IOStreams): Factory {
  return Object.create(f, { io: { value: io } }) as Factory;
}
