import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CreditNoteTemplateRequest } from '../../src/contract/template.js';
import { issuesOf, parseOrThrow, validate } from '../../src/contract/validate.js';
import { ExitCode, ValidationError } from '../../src/errors.js';

const Thing = z.looseObject({ name: z.string().min(1), count: z.int().positive(), tags: z.array(z.string()).max(2) });

describe('parseOrThrow', () => {
  it('returns the parsed value with unknown members kept', () => {
    expect(parseOrThrow(Thing, { name: 'x', count: 1, tags: [], extra: true }, 'thing')).toEqual({ name: 'x', count: 1, tags: [], extra: true });
  });

  it('throws a ValidationError (exit 2) that names the input and every issue', () => {
    let error: unknown;
    try {
      parseOrThrow(Thing, { name: '', count: 0, tags: ['a', 'b', 'c'] }, 'thing file');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    const validation = error as ValidationError;
    expect(validation.exitCode).toBe(ExitCode.usage);
    expect(validation.message).toMatch(/^thing file is invalid:/);
    expect(validation.issues).toEqual([
      { path: 'name', message: 'must not be empty' },
      { path: 'count', message: 'must be greater than 0' },
      { path: 'tags', message: 'must have at most 2 entries' },
    ]);
  });

  it('names the value itself with an empty path', () => {
    expect(() => parseOrThrow(Thing, 'text', 'thing')).toThrow(/\(root\): must be an object, not a string/);
  });
});

describe('validate', () => {
  it('gives issues instead of throwing, for the sandbox\'s 400 details', () => {
    expect(validate(Thing, { name: 'x', count: 2, tags: [] })).toEqual({ success: true, data: { name: 'x', count: 2, tags: [] } });
    expect(validate(Thing, { name: 'x', tags: [] })).toEqual({ success: false, issues: [{ path: 'count', message: 'is required' }] });
  });
});

describe('issuesOf', () => {
  it('gives dotted paths for a ZodError from any parse', () => {
    const result = CreditNoteTemplateRequest.safeParse({ products: [{ unitCode: 'XYZ' }] });
    expect(result.success).toBe(false);
    if (result.success) return;
    const issues = issuesOf(result.error);
    expect(issues.map((i) => i.path)).toContain('products.0.unitCode');
    expect(issues.find((i) => i.path === 'products.0.unitCode')?.message).toBe('unknown unit code "XYZ"; see the unit code list');
  });

  it('never echoes a value that failed a type check', () => {
    const result = validate(z.looseObject({ secret: z.number() }), { secret: 'hunter2' });
    expect(JSON.stringify(result)).not.toContain('hunter2');
  });
});
