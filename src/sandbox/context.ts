// What a route group is given besides the router: the sandbox's state, clock and settings.
// Each interface part is one module under routes/ exporting `register(router, sandbox)`.
import type { SandboxClock } from './clock.js';
import type { Router } from './router.js';
import type { SandboxState } from './state.js';

export interface Sandbox {
  readonly state: SandboxState;
  readonly clock: SandboxClock;
  /** `--auto-approve`: consent requests are approved without the page (CI). */
  readonly autoApprove: boolean;
  readonly version: string;
  /** ISO 8601, by the sandbox clock. */
  readonly startedAt: string;
  /**
   * When the data it holds began: its start, or for a state kept with `--state` when that
   * state was made (or last reset). A Grant saved before it is unknown here.
   */
  stateSince(): string;
  /** Whether the state is kept on disk across restarts (`--state`). */
  readonly persistent: boolean;
  /** The sandbox's log (stderr of `svc sandbox start`); never secrets or decrypted data. */
  log(line: string): void;
  /** Back to the fixture and to the base clock: everything since start is forgotten. */
  reset(): void;
}

export interface RouteGroup {
  register(router: Router, sandbox: Sandbox): void;
}
