// The sandbox's contract check (the end-to-end tests' mode): an answer that breaks the
// operation's schema, an error body that is not docs/interface-decisions.md#error-bodies, or a route the interface does
// not have is logged and answered 500; a conforming answer passes untouched.
import { describe, expect, it } from 'vitest';
import { checkReply } from '../../src/sandbox/contract-check.js';
import { json } from '../../src/sandbox/router.js';

describe('checkReply', () => {
  const logged: string[] = [];
  const log = (line: string) => logged.push(line);

  it('passes a conforming answer untouched', () => {
    const reply = json(200, { status: 'ok', version: '1', startedAt: new Date().toISOString(), now: new Date().toISOString() });
    expect(checkReply('GET', '/sandbox/health', reply, log)).toBe(reply);
    expect(logged).toEqual([]);
  });

  it('answers 500 and logs a contract violation for a body that breaks the schema', () => {
    const out = checkReply('GET', '/credit-note', json(200, [{ requestId: 1 }]), log);
    expect(out.status).toBe(500);
    expect(logged.at(-1)).toMatch(/^contract violation: GET \/credit-note 200: /);
  });

  it('checks error bodies against docs/interface-decisions.md#error-bodies and refuses a status or route the interface does not give', () => {
    expect(checkReply('GET', '/credit-note', json(404, { message: 'nope' }), log).status).toBe(500);
    expect(checkReply('GET', '/credit-note', json(201, []), log).status).toBe(500);
    expect(checkReply('GET', '/no/such/route', json(200, {}), log).status).toBe(500);
    expect(logged.filter((l) => l.startsWith('contract violation'))).toHaveLength(4);
  });
});
