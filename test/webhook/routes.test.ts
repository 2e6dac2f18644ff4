// `--forward-to [EVENTS=]URL`: which events a route names, and what a forward that got no
// answer reports (how many requests were sent, and why in words).
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parseRoute } from '../../src/webhook/routes.js';

describe('parseRoute', () => {
  it('takes the known events, one or a comma list, and a bare URL for every event', () => {
    expect([...(parseRoute('RETURN_REQUESTED,CREDIT_NOTE_CREATED=http://127.0.0.1:3000/h').events ?? [])]).toEqual(['RETURN_REQUESTED', 'CREDIT_NOTE_CREATED']);
    expect(parseRoute('http://127.0.0.1:3000/h')).toMatchObject({ events: undefined });
  });

  it('refuses an event svc does not know (a typo would route nothing), naming the known ones and how to route every event', () => {
    const refused = (() => {
      try {
        parseRoute('RETURN_REQUESTED,RETURN_REQESTED=http://127.0.0.1:3912/r');
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as UsageError).message).toBe('--forward-to: RETURN_REQESTED is not an event svc knows (RETURN_REQUESTED, CREDIT_NOTE_CREATED)');
    expect((refused as UsageError).hint).toContain('--forward-to http://127.0.0.1:3912/r');
  });
});
