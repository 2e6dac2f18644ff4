// Input files that are not UTF-8, as CI pipelines produce them: a Windows-1252/Latin-1 export
// of a POS ("Bäckerei" with ä as the one byte 0xE4) and what Windows PowerShell's `>` writes
// (UTF-16 with a byte order mark). Decoded leniently, the first reached the customer's
// receipt as "B\uFFFDckerei" without a word; now it is refused (exit 2) naming the file and
// the line, before anything is sent, and a batch refuses only its lines that are not UTF-8.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runSvc, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

// Nothing listens on port 9: a command that got as far as a request would exit 8.
const env = { SVC_BASE_URL: 'http://127.0.0.1:9', CI: 'true' };

async function groceries(documentNumber: string): Promise<Record<string, unknown>> {
  const template = JSON.parse(await readFile(join(repoRoot, 'fixtures', 'receipts', 'groceries.json'), 'utf8')) as { products: { name: string }[] };
  template.products[0]!.name = 'Bäckerei Brötchen';
  return { ...template, documentNumber };
}

describe('input files that are not UTF-8', () => {
  it('Latin-1: refused naming the file and line, exit 2; UTF-16: named as such', async () => {
    const dir = await dirs.make('svc-enc-');
    const pretty = JSON.stringify(await groceries('ENC-1'), null, 2);
    const latin1 = join(dir, 'latin1.json');
    await writeFile(latin1, Buffer.from(pretty, 'latin1'));
    const utf16 = join(dir, 'utf16.json');
    await writeFile(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(pretty, 'utf16le')]));
    const line = pretty.split('\n').findIndex((l) => l.includes('Bäckerei')) + 1;

    for (const args of [['receipt', 'send', '--file', latin1, '--email', 'alice@example.com', '--dry-run'], ['receipt', 'template', '--file', latin1]]) {
      const run = await runSvc(args, { env });
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stderr).toContain(`${latin1} is not UTF-8 text (line ${line})`);
      expect(run.stderr).toMatch(/hint: save it as UTF-8/);
    }
    const run16 = await runSvc(['receipt', 'send', '--file', utf16, '--email', 'alice@example.com', '--dry-run'], { env });
    expect(run16.exitCode, run16.stderr).toBe(2);
    expect(run16.stderr).toContain(`${utf16} is UTF-16 text, not UTF-8`);
  });

  it('a batch: its lines that are not UTF-8 fail as elements naming the line; the file in UTF-16 is refused whole', async () => {
    const dir = await dirs.make('svc-enc-');
    const lines = [
      Buffer.from('not json\n'),
      Buffer.from(`${JSON.stringify({ template: await groceries('ENC-2'), email: 'alice@example.com' })}\n`, 'latin1'),
    ];
    const file = join(dir, 'batch.jsonl');
    await writeFile(file, Buffer.concat(lines));
    const run = await runSvc(['receipt', 'send', '--batch', file], { env });
    expect(run.exitCode, run.stderr).toBe(2);
    const results = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { line: number; error: { code: string; message: string } });
    expect(results.map((r) => [r.line, r.error.code])).toEqual([
      [1, 'invalid_json'],
      [2, 'invalid_encoding'],
    ]);
    expect(results[1]?.error.message).toBe('line 2 is not UTF-8 text');

    const utf16 = join(dir, 'batch16.jsonl');
    await writeFile(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"template":{}}\n', 'utf16le')]));
    const run16 = await runSvc(['receipt', 'send', '--batch', utf16], { env });
    expect(run16.exitCode, run16.stderr).toBe(2);
    expect(run16.stderr).toContain(`${utf16} is UTF-16 text, not UTF-8`);
  });
});
