// Machine-readable errors (docs/interface-decisions.md#json-errors): with --json a failure prints one object
// `{ "error": { code, message, hint, exitCode, details } }` on stderr and nothing on stdout,
// with the same exit codes as without.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/net-port.js';
import { makeSvcHome, runSvc } from './helpers.js';
import { useMerchant } from './merchant.js';

const { dirs, merchant } = useMerchant();

interface JsonError {
  error: { code: string; message: string; hint: string | null; exitCode: number; details: { path: string; message: string }[] | null };
}

async function failing(args: string[], env: Record<string, string> = merchant().env, home = merchant().home): Promise<{ exitCode: number | undefined; report: JsonError }> {
  const r = await runSvc([...args, '--json'], { home, env });
  expect(r.stdout, 'nothing on stdout').toBe('');
  // Warnings may come first (each a line of its own); the failure is the last line, one JSON object.
  const lines = r.stderr.trim().split('\n');
  return { exitCode: r.exitCode, report: JSON.parse(lines.at(-1) as string) as JsonError };
}

describe('--json errors', () => {
  it('usage (2): an unknown option', async () => {
    const { exitCode, report } = await failing(['receipt', 'list', '--bogus']);
    expect(exitCode).toBe(2);
    expect(report.error).toMatchObject({ code: 'usage', exitCode: 2, message: expect.stringContaining("unknown option '--bogus'") });
  });

  it('validation (2): an invalid template names the fields in details', async () => {
    const file = join(await dirs.make('svc-bad-'), 'bad.json');
    await writeFile(file, JSON.stringify({ documentNumber: 'X-1' }));
    const { exitCode, report } = await failing(['receipt', 'template', '--file', file]);
    expect(exitCode).toBe(2);
    expect(report.error.code).toBe('validation_failed');
    expect(report.error.details?.map((d) => d.path)).toContain('currency');
  });

  it('authentication (4): a profile with no login', async () => {
    const { exitCode, report } = await failing(['token', 'get'], merchant().env, await makeSvcHome(dirs));
    expect(exitCode).toBe(4);
    expect(report.error).toMatchObject({ code: 'authentication_required', exitCode: 4, message: expect.stringContaining('svc auth login') });
  });

  it('not found (6): an unknown return request', async () => {
    const { exitCode, report } = await failing(['credit-note', 'show', 'no-such-request']);
    expect(exitCode).toBe(6);
    expect(report.error).toMatchObject({ code: 'not_found', exitCode: 6 });
  });

  it('conflict (7): a document number already issued with other content', async () => {
    const file = await merchant().newReceiptFile();
    await merchant().svc(['receipt', 'send', '--file', file, '--email', 'alice@example.com']);
    const { exitCode, report } = await failing(['receipt', 'send', '--file', file, '--email', 'bob@example.com']);
    expect(exitCode).toBe(7);
    expect(report.error).toMatchObject({ code: 'conflict', exitCode: 7, message: expect.stringContaining('was already issued') });
  });

  it('unavailable (8): nothing listening', async () => {
    const { exitCode, report } = await failing(['sandbox', 'outbox'], { SVC_BASE_URL: `http://127.0.0.1:${await freeLoopbackPort()}` });
    expect(exitCode).toBe(8);
    expect(report.error).toMatchObject({ code: 'unavailable', exitCode: 8 });
  });
});
