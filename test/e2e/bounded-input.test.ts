// Every file and standard input svc reads has a bound (docs/ci-and-scripts.md lists them):
// an input that does not end (/dev/zero, `yes |`, a FIFO whose writer keeps writing) is
// refused with exit 2 naming it, the limit and what raises it, within seconds and in little
// memory; before, `receipt template --file /dev/zero` grew past 4 GB and never ended. An
// input at the limit is taken; one byte over is refused. A FIFO that never closes and stays
// under the limit is waited on (nothing grows), and read once its writer closes.
import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSvcHome, repoRoot, runSvc, svcBin, svcEnv, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

// Nothing listens on port 9: a command whose input was taken gets as far as a request, exit 8.
const env = { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_API_KEY: 'sk_test_bounded', CI: 'true' };
const MiB = 1024 * 1024;
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

const groceries = async () => (await readFile(join(repoRoot, 'fixtures', 'receipts', 'groceries.json'), 'utf8')).replace(/\s*\n\s*/g, ' ');

/** `svc ARGS` in a shell (for `yes |` and FIFOs), with its peak resident memory in KiB when /usr/bin/time is there. */
async function shell(script: string, timeout = 60_000): Promise<{ exitCode: number | undefined; stderr: string; stdout: string; seconds: number; peakKiB: number | undefined }> {
  const home = await makeSvcHome(dirs);
  const started = Date.now();
  const timed = TIME ? `${TIME} -f 'peak-kib %M' ` : '';
  const result = await execa('sh', ['-c', script.replaceAll('SVC ', `${timed}node ${svcBin} `)], { env: svcEnv(home, env), extendEnv: false, reject: false, timeout, stdin: 'ignore' });
  const peak = /peak-kib (\d+)/.exec(result.stderr);
  return { exitCode: result.exitCode, stderr: result.stderr, stdout: result.stdout, seconds: (Date.now() - started) / 1000, peakKiB: peak ? Number(peak[1]) : undefined };
}

/** The readers and what each refuses an endless input with. */
const READERS: { name: string; args: (file: string) => string[]; refusal: (file: string) => string; hint: RegExp }[] = [
  { name: 'receipt template --file', args: (file) => ['receipt', 'template', '--file', file], refusal: (file) => `${file} is larger than 1 MiB (the service refuses request bodies over 1 MiB)`, hint: /nothing raises this limit/ },
  { name: 'receipt send --file', args: (file) => ['receipt', 'send', '--file', file, '--email', 'alice@example.com'], refusal: (file) => `${file} is larger than 1 MiB`, hint: /nothing raises this limit/ },
  { name: 'receipt email --file', args: (file) => ['receipt', 'email', '--file', file, '--to', 'alice@example.com'], refusal: (file) => `${file} is larger than 1 MiB`, hint: /nothing raises this limit/ },
  { name: 'credit-note template --file', args: (file) => ['credit-note', 'template', '--file', file], refusal: (file) => `${file} is larger than 1 MiB`, hint: /nothing raises this limit/ },
  { name: 'api --input', args: (file) => ['api', 'POST', '/receipt/template', '--input', file], refusal: (file) => `${file} is larger than 1 MiB`, hint: /nothing raises this limit/ },
  { name: 'webhook verify --file', args: (file) => ['webhook', 'verify', '--file', file, '--signature', 't=1,v1=00'], refusal: (file) => `${file} is larger than 1 MiB (a receiver refuses delivery bodies over 1 MiB)`, hint: /nothing raises this limit/ },
  { name: 'receipt send --batch (one endless line)', args: (file) => ['receipt', 'send', '--batch', file], refusal: (file) => `line 1 of ${file} is longer than 1 MiB`, hint: /nothing raises this limit/ },
];

const quick = (run: { seconds: number; peakKiB: number | undefined; stderr: string }) => {
  // Within a second on a quiet machine; the bound here leaves room for a loaded one.
  expect(run.seconds, run.stderr).toBeLessThan(15);
  if (run.peakKiB !== undefined) expect(run.peakKiB, 'peak resident memory (KiB)').toBeLessThan(100 * 1024);
};

describe('inputs that do not end are refused at their limit', () => {
  it.each(READERS)('$name /dev/zero: exit 2 naming the file and the limit', async (reader) => {
    const run = await shell(`SVC ${reader.args('/dev/zero').join(' ')}`);
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toContain(`error: ${reader.refusal('/dev/zero')}`);
    expect(run.stderr).toMatch(reader.hint);
    quick(run);
  });

  it('yes | … --file -, --input -, --batch -: exit 2 (a batch names its line count and --max-lines)', async () => {
    for (const args of [['receipt', 'template', '--file', '-'], ['api', 'POST', '/receipt/template', '--input', '-'], ['credit-note', 'template', '--file', '-']]) {
      const run = await shell(`yes | SVC ${args.join(' ')}`);
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stderr).toContain('error: standard input is larger than 1 MiB');
      quick(run);
    }
    const batch = await shell('yes | SVC receipt send --batch -');
    expect(batch.exitCode, batch.stderr).toBe(2);
    expect(batch.stderr).toContain('error: standard input has more than 10,000 lines');
    expect(batch.stderr).toContain('hint: --max-lines N (now 10,000) raises the limit');
    quick(batch);
  });

  it('a FIFO whose writer never closes and keeps writing: exit 2 once the limit is reached', async () => {
    const dir = await dirs.make('svc-fifo-');
    for (const [args, refusal] of [
      [['receipt', 'template', '--file'], 'is larger than 1 MiB'],
      [['receipt', 'send', '--batch'], 'has more than 10,000 lines'],
    ] as const) {
      const fifo = join(dir, `endless-${args[1]}`);
      // The writer holds the FIFO open until the test ends it; svc must not wait for its end.
      const run = await shell(`mkfifo ${fifo}; (yes > ${fifo} 2>/dev/null &) ; SVC ${args.join(' ')} ${fifo}; code=$?; pkill -P $$ yes 2>/dev/null; exit $code`);
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stderr).toContain(`error: ${fifo} ${refusal}`);
      quick(run);
    }
  });

  it('a FIFO that stays open under the limit is waited on without growing, then read when its writer closes', async () => {
    const dir = await dirs.make('svc-fifo-');
    const template = await groceries();
    for (const [args, content] of [
      [['receipt', 'template', '--file'], template],
      [['receipt', 'send', '--batch'], `{"template":${template},"email":"alice@example.com"}\n`],
    ] as const) {
      const fifo = join(dir, `open-${args[1]}`);
      const holder = `${fifo}.release`;
      await writeFile(join(dir, 'content'), content);
      // The writer sends the whole document, then keeps the FIFO open until `holder` exists.
      const child: ResultPromise = execa('sh', ['-c', `mkfifo ${fifo}; (cat ${join(dir, 'content')}; while [ ! -e ${holder} ]; do sleep 0.1; done) > ${fifo} & ${TIME ? `${TIME} -f 'peak-kib %M' ` : ''}node ${svcBin} ${args.join(' ')} ${fifo}`], {
        env: svcEnv(await makeSvcHome(dirs), env),
        extendEnv: false,
        reject: false,
        timeout: 60_000,
        stdin: 'ignore',
      });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(child.exitCode, 'svc waits for the writer to close').toBeNull();
      await writeFile(holder, '');
      const result = await child;
      // Read whole and sent: the request finds nothing on port 9.
      expect(result.exitCode, String(result.stderr)).toBe(8);
      const peak = /peak-kib (\d+)/.exec(String(result.stderr));
      if (peak) expect(Number(peak[1])).toBeLessThan(100 * 1024);
    }
  });

  it('--file - from a slow producer is read whole', async () => {
    const template = await groceries();
    const half = Math.floor(template.length / 2);
    const dir = await dirs.make('svc-slow-');
    await writeFile(join(dir, 'a'), template.slice(0, half));
    await writeFile(join(dir, 'b'), template.slice(half));
    const run = await shell(`(cat ${join(dir, 'a')}; sleep 1; cat ${join(dir, 'b')}) | SVC receipt template --file -`);
    expect(run.exitCode, run.stderr).toBe(8);
  });
});

describe('at the limit and one byte over', () => {
  it('a template file of exactly 1 MiB is taken, 1 MiB + 1 byte refused; --customer at 64 KiB likewise', async () => {
    const dir = await dirs.make('svc-limit-');
    const template = await groceries();
    const at = join(dir, 'at.json');
    const over = join(dir, 'over.json');
    await writeFile(at, template + ' '.repeat(MiB - Buffer.byteLength(template)));
    await writeFile(over, template + ' '.repeat(MiB + 1 - Buffer.byteLength(template)));
    const taken = await runSvc(['receipt', 'template', '--file', at], { env });
    expect(taken.exitCode, taken.stderr).toBe(8);
    const refused = await runSvc(['receipt', 'template', '--file', over], { env });
    expect(refused.exitCode, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`error: ${over} is larger than 1 MiB`);
    const fromStdin = await runSvc(['api', 'POST', '/receipt/template', '--input', '-'], { env, input: await readFile(over) });
    expect(fromStdin.exitCode, fromStdin.stderr).toBe(2);
    expect(fromStdin.stderr).toContain('error: standard input is larger than 1 MiB');

    const customer = '{"name":"Alice"}';
    await writeFile(join(dir, 'customer-at.json'), customer + ' '.repeat(64 * 1024 - customer.length));
    await writeFile(join(dir, 'customer-over.json'), customer + ' '.repeat(64 * 1024 + 1 - customer.length));
    const customerAt = await runSvc(['receipt', 'send', '--file', at, '--customer', join(dir, 'customer-at.json'), '--email', 'alice@example.com'], { env });
    expect(customerAt.exitCode, customerAt.stderr).toBe(8);
    const customerOver = await runSvc(['receipt', 'send', '--file', at, '--customer', join(dir, 'customer-over.json'), '--email', 'alice@example.com'], { env });
    expect(customerOver.exitCode, customerOver.stderr).toBe(2);
    expect(customerOver.stderr).toContain(`${join(dir, 'customer-over.json')} is larger than 64 KiB`);
  });

  it('a batch line of exactly 1 MiB is taken, one byte more refused naming the line; --max-lines N lines taken, N + 1 refused', async () => {
    const dir = await dirs.make('svc-limit-');
    const line = `{"template":${await groceries()},"email":"alice@example.com"}`;
    const padded = (bytes: number) => line + ' '.repeat(bytes - Buffer.byteLength(line));
    await writeFile(join(dir, 'at.jsonl'), `${padded(MiB)}\r\n${line}\n`);
    await writeFile(join(dir, 'over.jsonl'), `${line}\n${padded(MiB + 1)}\n`);
    const taken = await runSvc(['receipt', 'send', '--batch', join(dir, 'at.jsonl')], { env });
    expect(taken.exitCode, taken.stderr).toBe(8);
    expect(taken.stdout.trim().split('\n')).toHaveLength(2);
    const refused = await runSvc(['receipt', 'send', '--batch', join(dir, 'over.jsonl')], { env });
    expect(refused.exitCode, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`error: line 2 of ${join(dir, 'over.jsonl')} is longer than 1 MiB`);
    expect(refused.stdout).toBe('');

    await writeFile(join(dir, 'three.jsonl'), `${line}\n${line}\n${line}\n`);
    const three = await runSvc(['receipt', 'send', '--batch', join(dir, 'three.jsonl'), '--max-lines', '3'], { env });
    expect(three.exitCode, three.stderr).toBe(8);
    const two = await runSvc(['receipt', 'send', '--batch', join(dir, 'three.jsonl'), '--max-lines', '2'], { env });
    expect(two.exitCode, two.stderr).toBe(2);
    expect(two.stderr).toContain(`error: ${join(dir, 'three.jsonl')} has more than 2 lines`);
    expect(two.stderr).toContain('hint: --max-lines N (now 2) raises the limit');
  });

  it('SVC_CA_FILE of /dev/zero is refused naming the variable', async () => {
    const ca = await shell(`SVC_CA_FILE=/dev/zero SVC_BASE_URL=https://127.0.0.1:9 SVC receipt template --file ${join(repoRoot, 'fixtures', 'receipts', 'groceries.json')}`);
    expect(ca.stderr).toContain('SVC_CA_FILE /dev/zero is larger than 4 MiB');
    expect(ca.exitCode).toBe(2);
    quick(ca);
  });
});
