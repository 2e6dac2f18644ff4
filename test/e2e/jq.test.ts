// `--jq EXPR` on commands that print JSON: real jq semantics (jq 1.7 in WebAssembly), strings
// raw, every value of an NDJSON stream filtered, and a filter jq refuses exits 2.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { runSvc, tempDirs } from './helpers.js';
import { milkRequests, startMerchant, type Merchant } from './merchant.js';
import { requireTools } from './require-tools.js';

const dirs = tempDirs();
let m: Merchant;
let serviceReceiptId: string;
beforeAll(async () => {
  m = await startMerchant(dirs);
  serviceReceiptId = (await m.json<{ serviceReceiptId: string }>(['receipt', 'send', '--file', await m.newReceiptFile(), '--email', 'alice@example.com'])).serviceReceiptId;
  await m.svc(['sandbox', 'trigger', 'return-request', serviceReceiptId, '--item', '4001234567890:1']);
});
afterAll(async () => {
  await m?.sandbox.stop();
  await dirs.cleanup();
});
const jq = (args: string[]) => runSvc(args, { home: m.home, env: m.env });

describe('--jq', () => {
  it('receipt list: strings come out raw, one per line', async () => {
    const r = await jq(['receipt', 'list', '--jq', '.[].serviceReceiptId']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toContain(serviceReceiptId);
  });

  it('credit-note poll: select and build objects, as jq does', async () => {
    const r = await jq(['credit-note', 'poll', '--jq', `[.[] | select(.serviceReceiptId == "${serviceReceiptId}") | {id: .requestId, items: (.returnRequest.lineItems | length)}]`]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ id: expect.any(String), items: 1 }]);
  });

  it('svc api and an NDJSON stream (receipt send --batch): every value filtered', async () => {
    const api = await jq(['api', 'GET', '/credit-note', '--jq', 'length']);
    expect(api.exitCode, api.stderr).toBe(0);
    expect(Number(api.stdout.trim())).toBeGreaterThan(0);
    const template = JSON.parse(await readFile(m.receiptFile, 'utf8')) as Record<string, unknown>;
    const file = join(await dirs.make('svc-jq-'), 'b.jsonl');
    await writeFile(file, [1, 2].map((n) => JSON.stringify({ template: { ...template, documentNumber: `JQ-${n}` }, email: 'alice@example.com' })).join('\n'));
    const batch = await jq(['receipt', 'send', '--batch', file, '--jq', '.line']);
    expect(batch.exitCode, batch.stderr).toBe(0);
    expect(batch.stdout.trim().split('\n').sort()).toEqual(['1', '2']);
  });

  it('svc api -i --jq: the status line and headers as they are, the body filtered', async () => {
    const r = await jq(['api', 'GET', '/credit-note', '-i', '--jq', 'length']);
    expect(r.exitCode, r.stderr).toBe(0);
    const [head, body] = r.stdout.split('\n\n');
    expect(head).toMatch(/^HTTP 200\n(.+: .+\n?)+$/);
    expect(head).toMatch(/content-type: application\/json/i);
    expect(body).toMatch(/^\d+\n$/);
  });

  it('a filter jq refuses: exit 2 with jq\'s message, as a JSON error', async () => {
    const r = await jq(['receipt', 'list', '--jq', '.[']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({ error: { code: 'usage', message: expect.stringContaining('--jq: jq: error: syntax error') } });
  });

  it('a command that runs until stopped refuses --jq at once (exit 2) instead of never printing', async () => {
    for (const args of [['webhook', 'listen', '--port', '0'], ['credit-note', 'poll', '--watch']]) {
      const r = await runSvc([...args, '--jq', '.'], { home: m.home, env: { ...m.env, SVC_WEBHOOK_SECRET: 'whsec_test' }, timeout: 15_000 });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('runs until stopped');
    }
  });

  it('a batch that partly failed: every line filtered, and the exit code stays 9 (partly failed)', async () => {
    const template = JSON.parse(await readFile(m.receiptFile, 'utf8')) as Record<string, unknown>;
    const file = join(await dirs.make('svc-jq-'), 'six.jsonl');
    const good = [1, 2, 3, 4, 5].map((n) => JSON.stringify({ template: { ...template, documentNumber: `JQ-SIX-${n}` }, email: 'alice@example.com' }));
    await writeFile(file, [...good.slice(0, 3), '{ not json', ...good.slice(3)].join('\n'));
    const r = await jq(['receipt', 'send', '--batch', file, '--jq', 'if .error then "\\(.line) failed \\(.error.code)" else "\\(.line) ok" end']);
    expect(r.exitCode, r.stderr).toBe(9);
    expect(r.stdout.trim().split('\n').sort()).toEqual(['1 ok', '2 ok', '3 ok', '4 failed invalid_json', '5 ok', '6 ok']);
    // The natural CI filter: what failed.
    const failed = await jq(['receipt', 'send', '--batch', file, '--jq', 'select(.error) | .line']);
    expect(failed.exitCode).toBe(9);
    expect(failed.stdout).toBe('4\n');
    expect(JSON.parse(failed.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({ error: { code: 'partly_failed', exitCode: 9 } });
  });

  it('accept A B with one refused: the elements are filtered, exit 9', async () => {
    const [a] = await milkRequests(m, 1);
    const r = await jq(['credit-note', 'accept', a!, 'req-unknown-jq', '--jq', '.[] | "\\(.requestId) \\(.status // .error.code)"']);
    expect(r.exitCode, r.stderr).toBe(9);
    expect(r.stdout).toBe(`${a} ACCEPTED\nreq-unknown-jq not_found\n`);
  });

  it("jq's environment is the process's: env and $ENV", async () => {
    const r = await runSvc(['receipt', 'list', '--jq', '[env.SVC_JQ_WANT, $ENV.SVC_JQ_WANT, env.USER == "web_user", (env | has("SVC_BASE_URL"))] | @tsv'], { home: m.home, env: { ...m.env, SVC_JQ_WANT: 'grün' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('grün\tgrün\tfalse\ttrue\n');
  });

  it("jq's exit conventions: '' is the identity, halt_error's message and status, an error on the data exits 2 after the values before it", async () => {
    const identity = await jq(['receipt', 'list', '--jq', '']);
    const json = await jq(['receipt', 'list', '--json']);
    expect(identity.exitCode).toBe(0);
    expect(identity.stdout).toBe(json.stdout);
    const halt = await jq(['receipt', 'list', '--jq', '"stopped here\\n" | halt_error(3)']);
    expect(halt.exitCode).toBe(3);
    expect(halt.stderr).toBe('stopped here\n');
    const halt5 = await jq(['receipt', 'list', '--jq', '{a: 1} | halt_error']);
    expect(halt5.exitCode).toBe(5);
    expect(halt5.stderr).toBe('{"a":1}\n');
    const runtime = await jq(['receipt', 'list', '--jq', '"before", (.[0].serviceReceiptId | .x)']);
    expect(runtime.exitCode).toBe(2);
    expect(runtime.stdout).toBe('before\n');
    expect(JSON.parse(runtime.stderr.trim().split('\n').at(-1) ?? '')).toMatchObject({ error: { code: 'usage', message: expect.stringContaining('Cannot index string') } });
  });

  it('byte for byte what `--json | jq -r` prints (Debian jq)', async (ctx) => {
    const skip = requireTools(['jq']);
    if (skip) return ctx.skip(skip);
    const filters = ['.', '.[0]', '.[].serviceReceiptId', 'map(keys) | add | unique', '[.[] | {id: .serviceReceiptId, d: .documentNumber}]', '.[] | [.serviceReceiptId, .documentNumber] | @tsv', '.[] | [.serviceReceiptId] | @csv', 'length', '.[0] | to_entries | map("\\(.key)=\\(.value|tostring)") | .[]', 'map(select((.documentNumber // "") | test("JQ"))) | length', '"tab\\there\\u00e9 \\u2028"', '.[0] | tojson',
      // Taken by the fast path (src/io/jq-fast.ts) as well as those above.
      '.[] | select(.documentNumber) | .serviceReceiptId', '[.[] | .documentNumber] | sort | .[0]', 'map({id: .serviceReceiptId}) | .[0:1]', '.[] | "\\(.serviceReceiptId)\\t\\(.documentNumber // "-")"',
      '.[0] | keys_unsorted | join(",")', 'length > 0', 'map(.serviceReceiptId | ascii_upcase) | first', '[.[] | .serviceReceiptId | split("_") | length] | add', '.[0] | to_entries | map(.value | type) | unique | @csv'];
    const json = (await jq(['receipt', 'list', '--json'])).stdout;
    for (const filter of filters) {
      const ours = await jq(['receipt', 'list', '--jq', filter]);
      const theirs = await execa('jq', ['-r', filter], { input: json, reject: false, stripFinalNewline: false });
      expect(ours.stdout, filter).toBe(theirs.stdout);
      expect(ours.exitCode, filter).toBe(theirs.exitCode);
    }
  });
});
