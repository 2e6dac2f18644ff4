// Sandbox-only endpoints of docs/interface-decisions.md#sandbox-endpoints that concern the sandbox itself: liveness,
// reset, and moving the clock (forward, or back to real time).
import { ClockAdvanceRequest } from '../../contract/sandbox.js';
import type { Sandbox } from '../context.js';
import { json, type Router } from '../router.js';

export function register(router: Router, sandbox: Sandbox): void {
  router.get('/sandbox/health', () =>
    json(200, { status: 'ok', version: sandbox.version, startedAt: sandbox.startedAt, stateSince: sandbox.stateSince(), persistent: sandbox.persistent, now: sandbox.clock.iso() }),
  );

  router.post('/sandbox/reset', () => {
    sandbox.reset();
    return json(200, { status: 'reset', now: sandbox.clock.iso() });
  });

  router.post('/sandbox/clock', { body: ClockAdvanceRequest }, (req) => {
    sandbox.clock.advance(req.body.advanceSeconds);
    sandbox.log(`clock advanced by ${req.body.advanceSeconds}s to ${sandbox.clock.iso()}`);
    return json(200, { now: sandbox.clock.iso() });
  });

  // Back to real time: after `clock advance 1d` every webhook delivery is signed a day ahead
  // and refused, and nothing else brings the clock back short of `reset`, which forgets all.
  router.post('/sandbox/clock/reset', () => {
    sandbox.clock.reset();
    sandbox.log(`clock back to real time, ${sandbox.clock.iso()}`);
    return json(200, { now: sandbox.clock.iso() });
  });
}
