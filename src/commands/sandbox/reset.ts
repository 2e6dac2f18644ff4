import { SandboxResetResponse } from '../../contract/sandbox.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { sandboxRequest } from './request.js';

export type ResetOptions = Record<string, never>;

export async function run(_opts: ResetOptions, f: Factory): Promise<void> {
  // Resetting twice is the same as once, so a lost answer may be retried.
  const result = await sandboxRequest(f, { method: 'POST', path: '/sandbox/reset', schema: SandboxResetResponse, retry: true });
  if (f.io.json) writeJson(f.io, result);
  else note(f.io, `the sandbox is back to its fixture; its clock reads ${result.now}`);
}
