// Spinners only where stderr may be redrawn (`io.redraw`: a terminal that reports its width,
// not CI, not --json); otherwise the work runs silently. A spinner shows only once the work
// has taken SHOW_AFTER_MS (quick work shows nothing), and it leaves nothing behind: the line
// is cleared when the work ends, so a command leaves at most its result, and an error says
// itself. One frame is one line cut to the terminal's width, drawn by an unref'd timer: it
// cannot loop, hold the process open, or stand between svc and a signal (it installs no
// handler), and a terminal that stops reading loses frames instead of queueing them.
import type { IOStreams } from './streams.js';
import { terminalColumns } from './terminal-columns.js';
import { theme } from './theme.js';
import { fitWidth } from './width.js';

const SHOW_AFTER_MS = 150;
const FRAME_MS = 80;
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\x1b[2K';

export async function withSpinner<T>(io: IOStreams, text: string, work: () => Promise<T>): Promise<T> {
  if (!io.redraw || io.json) return work();
  const t = theme(io);
  let frame = 0;
  let drawn = false;
  const draw = () => {
    if (io.stderr.writableNeedDrain) return;
    // The last column stays free: a line that fills it wraps on some terminals.
    const line = fitWidth(text, terminalColumns(io.stderr) - 3);
    io.stderr.write(`${CLEAR_LINE}${t.cyan(FRAMES[frame++ % FRAMES.length])} ${line}`);
    drawn = true;
  };
  let ticker: NodeJS.Timeout | undefined;
  const timer = setTimeout(() => {
    draw();
    ticker = setInterval(draw, FRAME_MS).unref();
  }, SHOW_AFTER_MS).unref();
  try {
    return await work();
  } finally {
    clearTimeout(timer);
    clearInterval(ticker);
    if (drawn) io.stderr.write(CLEAR_LINE);
  }
}
