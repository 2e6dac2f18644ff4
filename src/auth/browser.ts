// Opening the authorization page. A browser is only started when a person is at this
// terminal; in CI, over SSH or with pipes the URL is printed instead, because a browser
// started there would open on nobody's screen (or on the remote machine's).
import type { Env } from '../factory.js';
import { isCI, note, type IOStreams } from '../io/streams.js';

/**
 * Shows the authorization URL to whoever approves it: a browser, or the demo's sandbox
 * client. Resolves true only when a browser was started, so nobody is told "opened" when
 * nothing opened.
 */
export type OpenUrl = (url: string) => Promise<boolean | void>;

/** How long an opener (xdg-open) may take to say it failed; after that it counts as started. */
const OPENER_GRACE_MS = 1500;

export function personPresent(io: IOStreams, env: Env): boolean {
  return io.stdinIsTTY && io.stdoutIsTTY && !isCI(env) && !env.SSH_CONNECTION && !env.SSH_TTY;
}

/** The `open` package, loaded on first use; a failure is a note, the printed URL still works. */
export function systemBrowser(io: IOStreams): OpenUrl {
  const failed = (error: unknown) =>
    note(io, `could not open a browser (${error instanceof Error ? error.message : String(error)}): open the URL above yourself`);
  return async (url) => {
    try {
      const { default: open } = await import('open');
      const child = await open(url);
      // xdg-open and its kin exit at once when they cannot open anything; a spawn failure
      // arrives as an event (unhandled, it would end the process).
      return await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), OPENER_GRACE_MS);
        timer.unref?.();
        child.once('error', (error) => {
          clearTimeout(timer);
          failed(error);
          resolve(false);
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          if (code === 0 || code === null) return resolve(true);
          failed(new Error(`the opener exited with ${code}`));
          resolve(false);
        });
      });
    } catch (error) {
      failed(error);
      return false;
    }
  };
}
