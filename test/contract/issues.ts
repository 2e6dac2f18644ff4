// Runs a schema through parseOrThrow, as the CLI does, and returns the issues it reported.
import { expect } from 'vitest';
import type { z } from 'zod';
import { parseOrThrow } from '../../src/contract/validate.js';
import { ValidationError } from '../../src/errors.js';

export function issuesFor(schema: z.ZodType, value: unknown): { path: string; message: string }[] {
  try {
    parseOrThrow(schema, value, 'input');
    return [];
  } catch (error) {
    if (error instanceof ValidationError) return [...error.issues];
    throw error;
  }
}

export function expectValid(schema: z.ZodType, value: unknown): void {
  expect(issuesFor(schema, value)).toEqual([]);
}

/** The value fails, and one of its issues names `path` (and matches `message`, when given). */
export function expectIssue(schema: z.ZodType, value: unknown, path: string, message?: string | RegExp): void {
  const issues = issuesFor(schema, value);
  const atPath = issues.filter((issue) => issue.path === path);
  expect(atPath, `issues: ${JSON.stringify(issues)}`).not.toEqual([]);
  if (message !== undefined) {
    expect(atPath.map((issue) => issue.message).join('\n')).toMatch(message);
  }
}
