// Opening the authorization page. A browser is only started when a person is at this
// terminal; in CI, over SSH or with pipes the URL is printed instead, because a browser
// started there would open on nobody's screen (or on the remote machine's).
import type { Env } from '../factory.js';
import { isCI, note, type IOStreams } from '../io/streams.js';

/** Shows the authorization URL to whoever approves it: a browser, or the demo's sandbox client. */
export type OpenUrl = (url: string) => Promise<void>;

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
      // Spawn failures (no xdg-open) arrive as an event; unhandled, it would end the process.
      child.once('error', failed);
    } catch (error) {
      failed(error);
    }
  };
}
