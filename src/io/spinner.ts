// Spinners only on an interactive stderr and never with --json; otherwise the work runs
// silently. A spinner shows only once the work has taken SHOW_AFTER_MS (quick work shows
// nothing, and ora is not even loaded), and it leaves nothing behind: the line is cleared
// when the work ends, so a command leaves at most its result, and an error says itself.
import type { IOStreams } from './streams.js';

const SHOW_AFTER_MS = 150;

export async function withSpinner<T>(io: IOStreams, text: string, work: () => Promise<T>): Promise<T> {
  if (!io.stderrIsTTY || io.json) return work();
  let spinner: { stop(): unknown } | undefined;
  let done = false;
  const timer = setTimeout(() => {
    void import('ora').then(({ default: ora }) => {
      if (done) return;
      spinner = ora({ text, stream: io.stderr, color: 'cyan', isEnabled: true, isSilent: false, discardStdin: false }).start();
    });
  }, SHOW_AFTER_MS);
  try {
    return await work();
  } finally {
    done = true;
    clearTimeout(timer);
    spinner?.stop();
  }
}
