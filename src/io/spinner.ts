// Spinners only on an interactive stderr and never with --json; otherwise the work runs silently.
import type { IOStreams } from './streams.js';

export async function withSpinner<T>(io: IOStreams, text: string, work: () => Promise<T>): Promise<T> {
  if (!io.stderrIsTTY || io.json) return work();
  const { default: ora } = await import('ora');
  const spinner = ora({ text, stream: io.stderr, color: 'cyan', isEnabled: true, isSilent: false }).start();
  try {
    const result = await work();
    spinner.succeed();
    return result;
  } catch (error) {
    spinner.fail();
    throw error;
  }
}
