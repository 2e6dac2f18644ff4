// Which commands keep zod's compiled parsers (src/contract/zod-mode.ts): those that check many
// values of a kind; a one-document command interprets, and checks exactly the same.
import * as z from '../../src/contract/zod.js';
import { afterEach, describe, expect, it } from 'vitest';
import { parsesMany, setZodMode } from '../../src/contract/zod-mode.js';

afterEach(() => {
  z.config({ jitless: false });
});

describe('zod mode', () => {
  it('compiled parsers for the commands that check many values, interpreted for one document', () => {
    for (const path of ['credit-note poll', 'credit-note triage', 'webhook listen', 'sandbox start', 'receipt list', 'grants list']) expect(parsesMany({ path, opts: {} }), path).toBe(true);
    expect(parsesMany({ path: 'receipt send', opts: { batch: 'lines.jsonl' } })).toBe(true);
    expect(parsesMany({ path: 'credit-note accept', opts: { allGrants: true } })).toBe(true);
    for (const path of ['receipt send', 'credit-note issue', 'sandbox outbox', 'credit-note show']) expect(parsesMany({ path, opts: {} }), path).toBe(false);
  });

  it('an interpreted schema gives the same verdicts and values', () => {
    const make = () => z.object({ a: z.string().min(1), b: z.array(z.object({ n: z.number().int() })).optional() }).loose();
    const values = [{ a: 'x' }, { a: '', b: [] }, { a: 'y', b: [{ n: 1.5 }] }, { a: 'z', extra: true, b: [{ n: 2 }] }, null, 'text'];
    setZodMode({ path: 'credit-note poll', opts: {} });
    const compiled = make();
    const fromCompiled = values.map((v) => compiled.safeParse(v));
    setZodMode({ path: 'receipt send', opts: {} });
    expect(z.config().jitless).toBe(true);
    const interpreted = make();
    expect(values.map((v) => interpreted.safeParse(v))).toEqual(fromCompiled);
  });
});
