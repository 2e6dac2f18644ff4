// `--jq`'s fast path against the real jq it stands in for (jq 1.7.1 in WebAssembly, the very
// runtime `--jq` falls back to, patched as the build patches it): for every filter and input
// here, the fast path either steps aside (undefined) or prints byte for byte what jq -r prints
// with exit 0; and the common filters do not step aside, or `--jq` would be slow again.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAST_CALLS, compileFastJq } from '../../src/io/jq-fast.js';
// @ts-expect-error: a build script without types
import { patchedJqRuntime } from '../../scripts/jq-runtime.mjs';

interface JqRun {
  status: number;
  stdout: Uint8Array;
}
// Node's WebAssembly, which TypeScript's lib for Node (without the DOM's) does not declare.
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<unknown>; Instance: new (module: unknown, imports: object) => unknown } }).WebAssembly;
let realJq: (input: string, filter: string) => Promise<{ status: number; out: string }>;
const ENV = { HOME: '/home/me', SVC_JQ_WANT: 'grün', PATH: '/usr/bin', OTHER: 'x=y' };

beforeAll(async () => {
  const { source, wasm: binary } = (patchedJqRuntime as () => { source: string; wasm: Buffer })();
  const mod = { exports: {} as unknown };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  new Function('module', 'exports', 'require', '__filename', '__dirname', source)(mod, mod.exports, createRequire(import.meta.url), '/jq.js', '/');
  const exported = mod.exports as { default?: unknown };
  const factory = (exported.default ?? exported) as (arg: object) => Promise<{ svcRun(input: Uint8Array, args: string[]): Promise<JqRun> }>;
  const compiled = await wasm.compile(binary);
  // As src/io/jq.ts hands the environment over: each value's UTF-8 bytes, one character a byte.
  const env: Record<string, string | undefined> = { USER: undefined, LOGNAME: undefined, PATH: undefined, PWD: undefined, HOME: undefined, LANG: undefined, _: undefined };
  for (const [name, value] of Object.entries(ENV)) env[name] = Buffer.from(value, 'utf8').toString('latin1');
  // A fresh instance for every run (the compiled module shared): an instance that has read a
  // stream of several values prints nothing on its next run.
  const instance = () =>
    factory({
      svcEnv: env,
      instantiateWasm(imports: object, receive: (instance: unknown, module: unknown) => void) {
        receive(new wasm.Instance(compiled, imports), compiled);
        return {};
      },
    });
  realJq = async (input, filter) => {
    const run = await (await instance()).svcRun(Buffer.from(input), ['-r', '-M', filter === '' ? '.' : filter]);
    return { status: run.status, out: Buffer.from(run.stdout).toString('utf8') };
  };
}, 60_000);

const receipts = JSON.stringify(
  [
    { serviceReceiptId: 'rcpt_1', documentNumber: 'JQ-1', status: 'DELIVERED', total: 1250, rate: 0.25, tags: ['a', 'b'], customer: null, paid: true, note: 'tab\there "q" \\ é😀\u007f' },
    { serviceReceiptId: 'rcpt_2', documentNumber: 'INV-2', status: 'PENDING', total: 99, rate: 1.5, tags: [], customer: { email: 'a@example.com' }, paid: false },
    { serviceReceiptId: 'rcpt_3', status: 'PENDING', total: 0, tags: ['b'], error: { code: 'not_found', message: 'no' } },
  ],
  null,
  2,
);
const ndjson = [{ line: 1, id: 'a' }, { line: 2, error: { code: 'invalid_json' } }, { line: 3, id: 'c', n: 12.5 }].map((x) => JSON.stringify(x)).join('\n') + '\n';
const inputs = [receipts, ndjson, '{"b":1,"a":[1,2,3],"c":{"d":"e"},"s":"ÅBc"}', '[]', '{}', 'null', '"text"', '[3,1,2,1,"b","a",null,true,false,[1],{"a":1}]'];

const filters = [
  '', '.', '.[0]', '.[-1]', '.[5]', '.[]', '.[].serviceReceiptId', '.[] | .serviceReceiptId', '.[]?', '.a?', '.[].tags[]', '.[1:]', '.[:-1]', '.[1:2]',
  'length', '.[] | length', 'map(keys) | add | unique', 'keys', 'keys_unsorted', '.[0] | keys', 'to_entries', '.[0] | to_entries | map("\\(.key)=\\(.value|tostring)") | .[]',
  '[.[] | {id: .serviceReceiptId, d: .documentNumber}]', '.[] | {id: .serviceReceiptId, status}', '.[] | {(.status): .total}', '{a: (1,2), b: (3,4)}', '{("x","y"): (1,2)}',
  '.[] | [.serviceReceiptId, .documentNumber] | @tsv', '.[] | [.serviceReceiptId, .total, .paid, .customer] | @csv', '.[] | [.note] | @tsv, @csv', '.[] | @json', '.[] | @text', '.[0].note', '.[0] | tojson', '.[0].note | tojson',
  'map(select((.documentNumber // "") | startswith("JQ"))) | length', '.[] | select(.status == "PENDING") | .serviceReceiptId', '[.[] | select(.total > 50)] | length', '.[] | select(.error) | .line',
  'if .error then "\\(.line) failed \\(.error.code)" else "\\(.line) ok" end', '.[] | "\\(.requestId) \\(.status // .error.code)"', '.[] | .documentNumber // "none"', '.[] | .customer.email // empty',
  '"tab\\there\\u00e9 \\u2028"', '"\\(1,2) \\(3,4)"', '[(1,2) + (10,20)]', '[(1,2) == (1,2)]', '[(true,false) and (true,false)]', '[(true,false) or (true,false)]',
  '.[] | .total + 1', '.[] | .total * 2', '.[] | .total / 4', '.[] | .total - 0.5', '.[] | .rate * 3', '[.[] | .total] | add', '[.[] | .total] | add / length', '.[] | .total / 3',
  '[.[] | .tags] | add', '.[] | .tags | join(",")', '[.[].serviceReceiptId] | join("-")', '[1, null, "a", true] | join("/")', '.[] | .serviceReceiptId | ascii_upcase', '.s | ascii_downcase',
  '.[] | .serviceReceiptId | ltrimstr("rcpt_")', '.[] | .serviceReceiptId | rtrimstr("_1")', '.[] | .serviceReceiptId | split("_")', '.[0] | has("status"), has("nope")',
  'sort', 'sort_by(.total)', 'sort_by(.status, .total) | map(.serviceReceiptId)', 'unique', '.[] | type', 'map(type)', '.[] | values', '.[] | strings', '.[] | numbers', 'map(scalars)', 'map(iterables)',
  'first', 'last', 'first(.[] | select(.total > 10))', '[.[] | .paid | not]', 'map(.paid) | any, all', '.[] | .total as $t | $t + 1', '.[0] as $x | .[1] | [$x.total, .total]',
  '[.[] | .total] | . - [0]', '{} + {a: 1}', '.[0] + {extra: true}', '. == .', '.[0] != .[1]', '.[] | .total < 100, .total >= 99', '[.[] | .status] | sort | unique',
  'env.SVC_JQ_WANT', '$ENV.SVC_JQ_WANT', 'env | has("HOME")', 'env.USER == "web_user"', '[env.SVC_JQ_WANT, $ENV.SVC_JQ_WANT] | @tsv', 'env', '$ENV | keys',
  '.[] | if .total > 100 then "big" elif .total > 0 then "small" else "zero" end', 'if . then 1 end', '.[0] | .tags[1]', '.[] | .tags | first', '.[].tags | length',
  '.x', '.[0].serviceReceiptId | .x', '"before", (.[0].serviceReceiptId | .x)', '.[] | .total | length', '.[0].paid | length', 'keys | .[0] | keys', '.[] | .total + "x"',
  '.[', '. as [$a] | $a', 'reduce .[] as $x (0; . + 1)', '.. | numbers', 'def f: 1; f', '-1', '.[] | .total % 7', 'try error("x") catch .', 'test("a")', '@base64', '"\\(.)" | halt_error', 'halt_error(3)',
  '{"a": 1, "10": 2}', '{"__proto__": 1}', '1e1000', '1.0', '100000000000000000', '0.00001', '[.[] | .total * 1e15]', '[.[] | .total / 1e9]',
];

describe('the fast path of --jq', () => {
  it('prints exactly what jq 1.7.1 prints, or steps aside', async () => {
    const taken: string[] = [];
    for (const filter of filters) {
      const fast = compileFastJq(filter);
      for (const input of inputs) {
        const ours = fast?.run(input, ENV);
        if (ours === undefined) continue;
        const theirs = await realJq(input, filter);
        expect({ filter, input: input.slice(0, 40), out: ours }).toEqual({ filter, input: input.slice(0, 40), out: theirs.out });
        expect(theirs.status, filter).toBe(0);
        taken.push(filter);
      }
    }
    expect(new Set(taken).size).toBeGreaterThan(100);
  }, 120_000);

  it('leaves to jq from the start a filter calling a function it does not run (jq compiles it before the command runs)', async () => {
    for (const filter of ['.a | nosuchfunction', 'constructor', 'map(toString)', '.[] | ltrimstr("a"; "b")', 'input', 'test("x")']) expect(compileFastJq(filter), filter).toBeUndefined();
    for (const filter of ['.[] | select(.a | strings) | ascii_downcase', 'map(.x) | join(",")', 'empty']) expect(compileFastJq(filter), filter).toBeDefined();
    // FAST_CALLS is the list of what `call` runs: each of its cases, no more, no less.
    const source = await readFile(new URL('../../src/io/jq-fast.ts', import.meta.url), 'utf8');
    const body = source.slice(source.indexOf('function* call('), source.indexOf('\n}\n', source.indexOf('function* call(')));
    expect([...FAST_CALLS].sort()).toEqual([...body.matchAll(/case '([^']+)'/g)].map((m) => m[1]).sort());
  });

  it('takes the common filters (they do not fall back to the WebAssembly jq)', () => {
    for (const filter of ['.[].serviceReceiptId', '.[] | select(.status == "PENDING") | .serviceReceiptId', '[.[] | {id: .serviceReceiptId, d: .documentNumber}]', 'length', '.[] | [.serviceReceiptId, .documentNumber] | @tsv', 'map(keys) | add | unique', '', '.', 'env.SVC_JQ_WANT']) {
      expect(compileFastJq(filter)?.run(receipts, ENV), filter).toBeDefined();
    }
    expect(compileFastJq('if .error then "\\(.line) failed \\(.error.code)" else "\\(.line) ok" end')?.run(ndjson, ENV)).toBe('1 ok\n2 failed invalid_json\n3 ok\n');
  });

  it('steps aside where JavaScript and jq would differ: literal numbers, integer-like keys, lone surrogates, errors', () => {
    for (const input of ['[1.0]', '[1e2]', '[-0]', '{"b":1,"10":2}', '["\\ud800"]', '[12345678901234567890]']) expect(compileFastJq('.')!.run(input, ENV), input).toBeUndefined();
    for (const filter of ['.[0].serviceReceiptId | .x', '.[] | .total + "x"', '{"10": 1}', '1e16', '[.[] | .total * 1e15]', '.[0].total / 1e9']) expect(compileFastJq(filter)?.run(receipts, ENV), filter).toBeUndefined();
  });

  it('random filters over the receipts: exact or aside', async () => {
    const path = fc.constantFrom('.', '.[]', '.[0]', '.[].total', '.[].status', '.[] | .tags', '.[-1]', '.[].customer', '.[0].note', '.[1:]');
    const leaf = fc.oneof(path, fc.constantFrom('length', 'keys', 'tojson', 'tostring', 'type', 'not', 'add', 'sort', 'unique', 'first', 'null', 'true', '1', '0.5', '"x"', '[]', '{}', 'env.HOME', '@csv', '@tsv', 'values', 'empty'));
    const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
      e: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.tuple(tie('e'), fc.constantFrom(' | ', ', ', ' // ', ' + ', ' - ', ' * ', ' == ', ' < ', ' and ', ' or '), tie('e')).map(([a, op, b]) => `(${a}${op}${b})`),
        tie('e').map((a) => `[${a}]`),
        tie('e').map((a) => `{k: (${a})}`),
        tie('e').map((a) => `map(${a})`),
        tie('e').map((a) => `select(${a})`),
        tie('e').map((a) => `"<\\(${a})>"`),
        tie('e').map((a) => `(${a})?`),
        fc.tuple(tie('e'), tie('e'), tie('e')).map(([a, b, c]) => `if ${a} then ${b} else ${c} end`),
      ),
    })).e;
    let taken = 0;
    await fc.assert(
      fc.asyncProperty(expr, async (filter) => {
        const ours = compileFastJq(filter)?.run(receipts, ENV);
        if (ours === undefined) return;
        taken++;
        const theirs = await realJq(receipts, filter);
        expect(ours, filter).toBe(theirs.out);
        expect(theirs.status, filter).toBe(0);
      }),
      { numRuns: Number(process.env.JQ_FAST_RUNS ?? 400) },
    );
    expect(taken).toBeGreaterThan(100);
  }, 120_000);
});
