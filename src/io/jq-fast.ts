// `--jq`'s fast path: the common part of jq's language evaluated in JavaScript, so that
// `--jq '.[].id'` does not pay for jq's WebAssembly build compiling its builtins (~50 ms, much
// more on a busy machine). It is exact or it steps aside: a filter it does not parse, an input
// it cannot read exactly as jq 1.7.1 would, a number it might print otherwise, and every error
// make it answer `undefined`, and the caller runs the real jq (src/io/jq.ts) on the whole input
// instead. Nothing is written until the filter has run over all the input without an error.
//
// Where JavaScript and jq 1.7.1 print differently, and how that is kept out:
// - Numbers: jq keeps a number literal's text (`1.0`, `1E+2`, `-0`) and prints computed
//   numbers with an exponent from 1e16 up and below 1e-4. Only inputs whose numbers are
//   written as JavaScript writes them are taken, and a number outside 1e-4 ≤ |x| < 1e16 (or 0)
//   that reaches the output steps aside.
// - Object keys: jq keeps insertion order, JavaScript moves integer-like keys first: an input
//   or a constructed object with an all-digit key steps aside (and `__proto__`, which a plain
//   object does not hold as data).
// - Strings: jq writes DEL as \u007f; an input with an escaped lone surrogate (jq would replace
//   it) steps aside. String length and ordering are by code point, as jq's.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The fast path cannot answer exactly: the caller runs the real jq. */
class StepAside extends Error {}
/** An error jq itself would raise: the real jq runs to report it with its own words. */
class JqError extends Error {}

const aside = (why: string): never => {
  throw new StepAside(why);
};

// ---------------------------------------------------------------------------------------------
// The filter's syntax tree and its parser (the subset; anything else steps aside).

type Node =
  | { k: 'identity' }
  | { k: 'literal'; value: Json }
  | { k: 'string'; parts: (string | Node)[] }
  | { k: 'format'; name: string }
  | { k: 'index'; target: Node; key: Node }
  | { k: 'slice'; target: Node; from: Node | null; to: Node | null }
  | { k: 'iterate'; target: Node }
  | { k: 'try'; body: Node }
  | { k: 'pipe'; left: Node; right: Node }
  | { k: 'bind'; source: Node; name: string; body: Node }
  | { k: 'comma'; left: Node; right: Node }
  | { k: 'alt'; left: Node; right: Node }
  | { k: 'and' | 'or'; left: Node; right: Node }
  | { k: 'binop'; op: string; left: Node; right: Node }
  | { k: 'array'; body: Node | null }
  | { k: 'object'; entries: { key: Node; value: Node }[] }
  | { k: 'var'; name: string }
  | { k: 'if'; cond: Node; then: Node; else: Node | null }
  | { k: 'call'; name: string; args: Node[] };

const KEYWORDS = new Set(['def', 'if', 'then', 'elif', 'else', 'end', 'as', 'reduce', 'foreach', 'try', 'catch', 'label', 'import', 'include', 'and', 'or', 'not', '__loc__']);

class Parser {
  private at = 0;
  constructor(private readonly text: string) {}

  parse(): Node {
    const node = this.pipe();
    this.space();
    if (this.at < this.text.length) aside('unparsed');
    return node;
  }

  private space(): void {
    while (this.at < this.text.length && ' \t\n\r'.includes(this.text[this.at]!)) this.at++;
    if (this.text[this.at] === '#') aside('comment');
  }
  private peek(s: string): boolean {
    this.space();
    return this.text.startsWith(s, this.at);
  }
  private eat(s: string): boolean {
    if (!this.peek(s)) return false;
    this.at += s.length;
    return true;
  }
  private expect(s: string): void {
    if (!this.eat(s)) aside(`expected ${s}`);
  }
  private word(): string | undefined {
    this.space();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.text.slice(this.at, this.at + 64));
    return m?.[0];
  }
  private eatWord(w: string): boolean {
    if (this.word() !== w) return false;
    this.at += w.length;
    return true;
  }

  // Pipe: Term as $x | Pipe, or Comma | Pipe (right associative).
  private pipe(): Node {
    const left = this.comma();
    if (this.eatWord('as')) {
      // `Term as $x | body`: only a postfix term may stand before `as`.
      if (!this.postfixTerms.has(left)) aside('as after an operator');
      this.expect('$');
      const name = this.word();
      if (name === undefined || name === '__loc__') return aside('pattern');
      this.at += name.length;
      this.expect('|');
      return { k: 'bind', source: left, name, body: this.pipe() };
    }
    if (this.peek('|=')) aside('update');
    if (this.eat('|')) return { k: 'pipe', left, right: this.pipe() };
    return left;
  }
  /** The nodes parsed as a (postfix) term: what may stand before `as`. */
  private readonly postfixTerms = new WeakSet<Node>();

  private comma(): Node {
    let left = this.alt();
    while (this.peek(',')) {
      this.at++;
      left = { k: 'comma', left, right: this.alt() };
    }
    return left;
  }
  private alt(): Node {
    const left = this.or();
    if (this.peek('//=')) aside('update');
    if (this.eat('//')) return { k: 'alt', left, right: this.alt() };
    return left;
  }
  private or(): Node {
    let left = this.and();
    while (this.eatWord('or')) left = { k: 'or', left, right: this.and() };
    return left;
  }
  private and(): Node {
    let left = this.compare();
    while (this.eatWord('and')) left = { k: 'and', left, right: this.compare() };
    return left;
  }
  private compare(): Node {
    const left = this.additive();
    for (const op of ['==', '!=', '<=', '>=', '<', '>']) {
      if (this.peek(op)) {
        this.at += op.length;
        const right = this.additive();
        for (const again of ['==', '!=', '<', '>']) if (this.peek(again)) aside('chained comparison');
        return { k: 'binop', op, left, right };
      }
    }
    if (this.peek('=') || this.peek('+=') || this.peek('-=') || this.peek('*=') || this.peek('/=') || this.peek('%=')) aside('assignment');
    return left;
  }
  private additive(): Node {
    let left = this.multiplicative();
    for (;;) {
      if (this.peek('+=') || this.peek('-=')) return left;
      if (this.eat('+')) left = { k: 'binop', op: '+', left, right: this.multiplicative() };
      else if (this.eat('-')) left = { k: 'binop', op: '-', left, right: this.multiplicative() };
      else return left;
    }
  }
  private multiplicative(): Node {
    let left = this.postfix();
    for (;;) {
      if (this.peek('*=') || this.peek('/=') || this.peek('//')) return left;
      if (this.eat('*')) left = { k: 'binop', op: '*', left, right: this.postfix() };
      else if (this.eat('/')) left = { k: 'binop', op: '/', left, right: this.postfix() };
      else if (this.peek('%')) return aside('modulo');
      else return left;
    }
  }

  private postfix(): Node {
    let node = this.term();
    for (;;) {
      this.space();
      const c = this.text[this.at];
      if (c === '?' && this.text[this.at + 1] !== '/') {
        this.at++;
        node = { k: 'try', body: node };
      } else if (c === '.' && this.text[this.at + 1] !== '.') {
        this.at++;
        if (this.peek('[')) node = this.bracket(node);
        else node = this.field(node);
      } else if (c === '[') {
        node = this.bracket(node);
      } else break;
    }
    this.postfixTerms.add(node);
    return node;
  }
  // After a dot: `.name` or `."str"`.
  private field(target: Node): Node {
    if (this.text[this.at] === '"') return { k: 'index', target, key: this.string() };
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.text.slice(this.at, this.at + 256));
    if (!m || KEYWORDS.has(m[0])) return aside('field');
    this.at += m[0].length;
    return { k: 'index', target, key: { k: 'literal', value: m[0] } };
  }
  // `[]`, `[e]`, `[e:e]`.
  private bracket(target: Node): Node {
    this.expect('[');
    if (this.eat(']')) return { k: 'iterate', target };
    let from: Node | null = null;
    if (!this.peek(':')) from = this.pipe();
    if (this.eat(':')) {
      const to = this.peek(']') ? null : this.pipe();
      this.expect(']');
      if (from === null && to === null) aside('empty slice');
      return { k: 'slice', target, from, to };
    }
    this.expect(']');
    return { k: 'index', target, key: from! };
  }

  private term(): Node {
    this.space();
    const c = this.text[this.at];
    if (c === undefined) return aside('end');
    if (c === '.') {
      if (this.text[this.at + 1] === '.') return aside('recurse');
      this.at++;
      const next = this.text[this.at];
      if (next === '[') return this.bracket({ k: 'identity' });
      if (next === '"' || (next !== undefined && /[A-Za-z_]/.test(next))) return this.field({ k: 'identity' });
      return { k: 'identity' };
    }
    if (c === '"') return this.string();
    if (c === '(') {
      this.at++;
      const inner = this.pipe();
      this.expect(')');
      return inner;
    }
    if (c === '[') {
      this.at++;
      if (this.eat(']')) return { k: 'array', body: null };
      const body = this.pipe();
      this.expect(']');
      return { k: 'array', body };
    }
    if (c === '{') return this.object();
    if (c === '$') {
      this.at++;
      const name = this.word();
      if (name === undefined || name === '__loc__' || name === '__prog_args') return aside('variable');
      this.at += name.length;
      if (this.peek('::')) aside('module');
      return { k: 'var', name };
    }
    if (c === '@') {
      this.at++;
      const name = this.word();
      if (name === undefined || !['text', 'json', 'tsv', 'csv'].includes(name)) return aside('format');
      this.at += name.length;
      if (this.peek('"')) aside('format string');
      return { k: 'format', name };
    }
    if (/[0-9]/.test(c)) {
      const m = /^[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(this.text.slice(this.at, this.at + 64))!;
      const text = m[0];
      const value = Number(text);
      // jq keeps a literal's text; only literals JavaScript writes the same way are taken.
      if (String(value) !== text) aside('number literal');
      this.at += text.length;
      return { k: 'literal', value };
    }
    const w = this.word();
    if (w === undefined) return aside('term');
    if (w === 'if') {
      this.at += 2;
      return this.conditional();
    }
    if (KEYWORDS.has(w) && w !== 'not') return aside(`keyword ${w}`);
    this.at += w.length;
    if (this.peek('::')) aside('module');
    if (w === 'null' || w === 'true' || w === 'false') {
      if (this.peek('(')) aside('call');
      return { k: 'literal', value: w === 'null' ? null : w === 'true' };
    }
    const args: Node[] = [];
    if (this.eat('(')) {
      do args.push(this.pipe());
      while (this.eat(';'));
      this.expect(')');
    }
    return { k: 'call', name: w, args };
  }

  // After `if` or `elif`.
  private conditional(): Node {
    const cond = this.pipe();
    if (!this.eatWord('then')) aside('then');
    const then = this.pipe();
    // `elif` is another `if` in the else branch, ending with the same `end`.
    if (this.eatWord('elif')) return { k: 'if', cond, then, else: this.conditional() };
    let otherwise: Node | null = null;
    if (this.eatWord('else')) otherwise = this.pipe();
    if (!this.eatWord('end')) aside('end');
    return { k: 'if', cond, then, else: otherwise };
  }

  private object(): Node {
    this.expect('{');
    const entries: { key: Node; value: Node }[] = [];
    if (this.eat('}')) return { k: 'object', entries };
    do {
      this.space();
      const c = this.text[this.at];
      let key: Node;
      let shorthand: Node | undefined;
      if (c === '$') {
        this.at++;
        const name = this.word();
        if (name === undefined || name === '__loc__') return aside('variable key');
        this.at += name.length;
        key = { k: 'literal', value: name };
        shorthand = { k: 'var', name };
      } else if (c === '"') {
        key = this.string();
        shorthand = { k: 'index', target: { k: 'identity' }, key };
      } else if (c === '(') {
        this.at++;
        key = this.pipe();
        this.expect(')');
      } else if (c === '@') {
        return aside('format key');
      } else {
        const w = this.word();
        if (w === undefined || KEYWORDS.has(w)) return aside('object key');
        this.at += w.length;
        key = { k: 'literal', value: w };
        shorthand = { k: 'index', target: { k: 'identity' }, key };
      }
      if (this.eat(':')) {
        // A value is an object's ExpD: a postfix term, possibly piped and negated, never a comma.
        entries.push({ key, value: this.objectValue() });
      } else {
        if (shorthand === undefined) return aside('object shorthand');
        entries.push({ key, value: shorthand });
      }
    } while (this.eat(','));
    this.expect('}');
    return { k: 'object', entries };
  }
  // jq's ExpD: `ExpD | ExpD`, `- ExpD`, or a Term.
  private objectValue(): Node {
    if (this.peek('-')) aside('negation');
    const left = this.postfix();
    if (this.peek('|=')) aside('update');
    if (this.eat('|')) return { k: 'pipe', left, right: this.objectValue() };
    this.space();
    const next = this.text[this.at];
    if (next !== ',' && next !== '}') aside('object value');
    return left;
  }

  // A string literal, with `\(...)` interpolation.
  private string(): Node {
    this.expect('"');
    const parts: (string | Node)[] = [];
    let current = '';
    for (;;) {
      const c = this.text[this.at++];
      if (c === undefined) return aside('unterminated string');
      if (c === '"') break;
      if (c !== '\\') {
        current += c;
        continue;
      }
      const e = this.text[this.at++];
      const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e !== undefined && e in simple) current += simple[e];
      else if (e === 'u') {
        const hex = this.text.slice(this.at, this.at + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) return aside('escape');
        const code = parseInt(hex, 16);
        if (code >= 0xd800 && code <= 0xdfff) return aside('surrogate escape');
        current += String.fromCharCode(code);
        this.at += 4;
      } else if (e === '(') {
        if (current !== '') parts.push(current);
        current = '';
        parts.push(this.pipe());
        this.expect(')');
      } else return aside('escape');
    }
    if (current !== '' || parts.length === 0) parts.push(current);
    if (parts.length === 1 && typeof parts[0] === 'string') return { k: 'literal', value: parts[0] };
    return { k: 'string', parts };
  }
}

// ---------------------------------------------------------------------------------------------
// Values: jq's types, order, truth, text.

const typeOf = (v: Json): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v);
const isObject = (v: Json): v is { [key: string]: Json } => v !== null && typeof v === 'object' && !Array.isArray(v);
const truthy = (v: Json): boolean => v !== null && v !== false;
const ORDER: Record<string, number> = { null: 0, boolean: 1, number: 3, string: 4, array: 5, object: 6 };

/** Strings as jq compares them: by code point (UTF-8 bytes), not UTF-16 unit. */
function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (an astral code point) sorts after every BMP unit.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}
const sortedKeys = (o: { [key: string]: Json }): string[] => Object.keys(o).sort(compareStrings);

function compare(a: Json, b: Json): number {
  const ta = typeOf(a);
  const tb = typeOf(b);
  if (ta !== tb) {
    if (ta === 'boolean' && tb === 'boolean') return 0;
    const oa = ta === 'boolean' ? (a ? 2 : 1) : ORDER[ta]!;
    const ob = tb === 'boolean' ? (b ? 2 : 1) : ORDER[tb]!;
    return oa - ob;
  }
  switch (ta) {
    case 'null':
      return 0;
    case 'boolean':
      return a === b ? 0 : a ? 1 : -1;
    case 'number':
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 'string':
      return Math.sign(compareStrings(a as string, b as string));
    case 'array': {
      const x = a as Json[];
      const y = b as Json[];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compare(x[i]!, y[i]!);
        if (c !== 0) return c;
      }
      return Math.sign(x.length - y.length);
    }
    default: {
      const x = a as { [key: string]: Json };
      const y = b as { [key: string]: Json };
      const kx = sortedKeys(x);
      const ky = sortedKeys(y);
      const c = compare(kx, ky);
      if (c !== 0) return c;
      for (const k of kx) {
        const d = compare(x[k]!, y[k]!);
        if (d !== 0) return d;
      }
      return 0;
    }
  }
}

/** A number as jq 1.7.1 writes it, for the numbers where that is JavaScript's text. */
function numberText(n: number): string {
  const abs = Math.abs(n);
  if (!((n === 0 && !Object.is(n, -0)) || (abs >= 1e-4 && abs < 1e16))) aside('number format');
  return String(n);
}

function checkKey(key: string): string {
  if (/^[0-9]+$/.test(key) || key === '__proto__') aside('object key');
  return key;
}

/** jq's JSON text: compact, or indented by two as its default output. */
function dump(v: Json, indent: boolean, depth = 0): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return numberText(v);
  if (typeof v === 'string') return quote(v);
  const pad = indent ? '\n' + '  '.repeat(depth + 1) : '';
  const close = indent ? '\n' + '  '.repeat(depth) : '';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return '[' + v.map((x) => pad + dump(x, indent, depth + 1)).join(',') + close + ']';
  }
  const keys = Object.keys(v);
  if (keys.length === 0) return '{}';
  return '{' + keys.map((k) => pad + quote(k) + (indent ? ': ' : ':') + dump(v[k]!, indent, depth + 1)).join(',') + close + '}';
}
const quote = (s: string): string => {
  const text = JSON.stringify(s);
  return text.includes('\x7f') ? text.replace(/\x7f/g, '\\u007f') : text;
};
const toText = (v: Json): string => (typeof v === 'string' ? v : dump(v, false));
const codePoints = (s: string): number => {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
};

function withKey(o: { [key: string]: Json }, key: string, value: Json): { [key: string]: Json } {
  o[checkKey(key)] = value;
  return o;
}

function add(a: Json, b: Json): Json {
  if (a === null) return b;
  if (b === null) return a;
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (isObject(a) && isObject(b)) {
    const result: { [key: string]: Json } = { ...a };
    for (const [k, v] of Object.entries(b)) withKey(result, k, v);
    return result;
  }
  throw new JqError('cannot be added');
}

function arithmetic(op: string, a: Json, b: Json): Json {
  switch (op) {
    case '+':
      return add(a, b);
    case '-':
      if (typeof a === 'number' && typeof b === 'number') return a - b;
      if (Array.isArray(a) && Array.isArray(b)) return a.filter((x) => !b.some((y) => compare(x, y) === 0));
      throw new JqError('cannot be subtracted');
    case '*':
      if (typeof a === 'number' && typeof b === 'number') return a * b;
      return aside('multiply');
    case '/':
      if (typeof a === 'number' && typeof b === 'number' && b !== 0) return a / b;
      return aside('divide');
    case '==':
      return compare(a, b) === 0;
    case '!=':
      return compare(a, b) !== 0;
    case '<':
      return compare(a, b) < 0;
    case '<=':
      return compare(a, b) <= 0;
    case '>':
      return compare(a, b) > 0;
    default:
      return compare(a, b) >= 0;
  }
}

function index(target: Json, key: Json): Json {
  if (typeof key === 'string') {
    if (target === null) return null;
    if (isObject(target)) return Object.hasOwn(target, key) ? target[key]! : null;
    throw new JqError('cannot index');
  }
  if (typeof key === 'number') {
    if (!Number.isInteger(key)) aside('fractional index');
    if (target === null) return null;
    if (Array.isArray(target)) {
      const i = key < 0 ? target.length + key : key;
      return i >= 0 && i < target.length ? target[i]! : null;
    }
    throw new JqError('cannot index');
  }
  return aside('index kind');
}

function slice(target: Json, from: Json, to: Json): Json {
  if (target === null) return null;
  if (!Array.isArray(target)) return aside('slice kind');
  const bound = (b: Json, otherwise: number): number => {
    if (b === null) return otherwise;
    if (typeof b !== 'number' || !Number.isInteger(b)) return aside('slice bound');
    const n = b < 0 ? target.length + b : b;
    return Math.min(Math.max(n, 0), target.length);
  };
  const start = bound(from, 0);
  const end = bound(to, target.length);
  return end > start ? target.slice(start, end) : [];
}

function* values(v: Json): Generator<Json> {
  if (Array.isArray(v)) yield* v;
  else if (isObject(v)) yield* Object.values(v);
  else throw new JqError('cannot iterate');
}

// ---------------------------------------------------------------------------------------------
// Evaluation: every node a generator of outputs, in jq's order.

type Scope = ReadonlyMap<string, Json>;

function* evaluate(node: Node, input: Json, scope: Scope): Generator<Json> {
  switch (node.k) {
    case 'identity':
      yield input;
      return;
    case 'literal':
      yield node.value;
      return;
    case 'string': {
      let texts = [''];
      for (const part of node.parts) {
        if (typeof part === 'string') {
          texts = texts.map((t) => t + part);
          continue;
        }
        const next: string[] = [];
        // jq's order: the later interpolation varies slowest.
        for (const v of evaluate(part, input, scope)) for (const t of texts) next.push(t + toText(v));
        texts = next;
      }
      yield* texts;
      return;
    }
    case 'format':
      yield format(node.name, input);
      return;
    case 'index':
      for (const key of evaluate(node.key, input, scope)) for (const target of evaluate(node.target, input, scope)) yield index(target, key);
      return;
    case 'slice':
      for (const from of node.from ? evaluate(node.from, input, scope) : [null])
        for (const to of node.to ? evaluate(node.to, input, scope) : [null])
          for (const target of evaluate(node.target, input, scope)) yield slice(target, from, to);
      return;
    case 'iterate':
      for (const target of evaluate(node.target, input, scope)) yield* values(target);
      return;
    case 'try':
      try {
        for (const v of evaluate(node.body, input, scope)) yield v;
      } catch (e) {
        if (!(e instanceof JqError)) throw e;
      }
      return;
    case 'pipe':
      for (const v of evaluate(node.left, input, scope)) yield* evaluate(node.right, v, scope);
      return;
    case 'bind':
      for (const v of evaluate(node.source, input, scope)) yield* evaluate(node.body, input, new Map(scope).set(node.name, v));
      return;
    case 'comma':
      yield* evaluate(node.left, input, scope);
      yield* evaluate(node.right, input, scope);
      return;
    case 'alt': {
      const found: Json[] = [];
      try {
        for (const v of evaluate(node.left, input, scope)) if (truthy(v)) found.push(v);
      } catch (e) {
        if (e instanceof JqError) aside('error in //');
        throw e;
      }
      if (found.length > 0) yield* found;
      else yield* evaluate(node.right, input, scope);
      return;
    }
    case 'and':
    case 'or':
      for (const l of evaluate(node.left, input, scope)) {
        if (node.k === 'and' ? !truthy(l) : truthy(l)) {
          yield node.k === 'or';
          continue;
        }
        for (const r of evaluate(node.right, input, scope)) yield truthy(r);
      }
      return;
    case 'binop':
      for (const r of evaluate(node.right, input, scope)) for (const l of evaluate(node.left, input, scope)) yield arithmetic(node.op, l, r);
      return;
    case 'array':
      yield node.body ? [...evaluate(node.body, input, scope)] : [];
      return;
    case 'object':
      yield* construct(node.entries, 0, {}, input, scope);
      return;
    case 'var':
      if (scope.has(node.name)) yield scope.get(node.name)!;
      else if (node.name === 'ENV') yield environment(scope);
      else aside('unbound variable');
      return;
    case 'if':
      for (const c of evaluate(node.cond, input, scope)) {
        if (truthy(c)) yield* evaluate(node.then, input, scope);
        else if (node.else) yield* evaluate(node.else, input, scope);
        else yield input;
      }
      return;
    case 'call':
      yield* call(node.name, node.args, input, scope);
      return;
  }
}

function* construct(entries: { key: Node; value: Node }[], at: number, built: { [key: string]: Json }, input: Json, scope: Scope): Generator<Json> {
  if (at === entries.length) {
    yield built;
    return;
  }
  const entry = entries[at]!;
  for (const key of evaluate(entry.key, input, scope)) {
    if (typeof key !== 'string') throw new JqError('object key');
    for (const value of evaluate(entry.value, input, scope)) yield* construct(entries, at + 1, withKey({ ...built }, key, value), input, scope);
  }
}

const ENV_KEY = '\0env';
function environment(scope: Scope): Json {
  const env = scope.get(ENV_KEY);
  if (env === undefined) return aside('no environment');
  return env;
}

function format(name: string, v: Json): string {
  if (name === 'text') return toText(v);
  if (name === 'json') return dump(v, false);
  if (!Array.isArray(v)) throw new JqError(`cannot be ${name}-formatted`);
  if (name === 'csv') {
    return v
      .map((x) => {
        if (typeof x === 'number') return numberText(x);
        if (typeof x === 'string') return `"${x.replace(/"/g, '""')}"`;
        if (typeof x === 'boolean') return x ? 'true' : 'false';
        if (x === null) return '';
        throw new JqError('not valid in a csv row');
      })
      .join(',');
  }
  return v
    .map((x) => {
      if (typeof x === 'number') return numberText(x);
      if (typeof x === 'string') return x.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!);
      if (typeof x === 'boolean') return x ? 'true' : 'false';
      if (x === null) return '';
      throw new JqError('not valid in a tsv row');
    })
    .join('\t');
}

const TYPE_SELECTORS: Record<string, (v: Json) => boolean> = {
  values: (v) => v !== null,
  nulls: (v) => v === null,
  booleans: (v) => typeof v === 'boolean',
  numbers: (v) => typeof v === 'number',
  strings: (v) => typeof v === 'string',
  arrays: (v) => Array.isArray(v),
  objects: (v) => isObject(v),
  iterables: (v) => Array.isArray(v) || isObject(v),
  scalars: (v) => !Array.isArray(v) && !isObject(v),
};

function sortBy(input: Json, keyOf: (v: Json) => Json): Json[] {
  if (!Array.isArray(input)) throw new JqError('cannot be sorted');
  return input
    .map((v, i) => ({ v, key: keyOf(v), i }))
    .sort((a, b) => compare(a.key, b.key) || a.i - b.i)
    .map((x) => x.v);
}

/**
 * The builtins `call` runs, as name/arity (and the type selectors, `strings`…): a filter that
 * calls any other is jq's from the start (compileFastJq), so that jq compiles it before the
 * command runs (src/io/jq.ts) instead of this path stepping aside only once there is output.
 */
export const FAST_CALLS: ReadonlySet<string> = new Set([
  'empty/0',
  'not/0',
  'env/0',
  'length/0',
  'utf8bytelength/0',
  'type/0',
  'keys/0',
  'keys_unsorted/0',
  'has/1',
  'map/1',
  'select/1',
  'add/0',
  'any/0',
  'all/0',
  'tostring/0',
  'tojson/0',
  'to_entries/0',
  'join/1',
  'ascii_downcase/0',
  'ascii_upcase/0',
  'startswith/1',
  'endswith/1',
  'ltrimstr/1',
  'rtrimstr/1',
  'split/1',
  'first/0',
  'last/0',
  'first/1',
  'sort/0',
  'sort_by/1',
  'unique/0',
]);

/** Whether the tree calls a function `call` does not run. */
function callsOutsideFastPath(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(callsOutsideFastPath);
  if (value === null || typeof value !== 'object') return false;
  const node = value as { k?: unknown; name?: unknown; args?: unknown };
  if (node.k === 'call' && typeof node.name === 'string' && Array.isArray(node.args)) {
    const known = FAST_CALLS.has(`${node.name}/${node.args.length}`) || (node.args.length === 0 && Object.hasOwn(TYPE_SELECTORS, node.name));
    if (!known) return true;
  }
  return Object.values(value).some(callsOutsideFastPath);
}

function* call(name: string, args: Node[], input: Json, scope: Scope): Generator<Json> {
  const arity = `${name}/${args.length}`;
  switch (arity) {
    case 'empty/0':
      return;
    case 'not/0':
      yield !truthy(input);
      return;
    case 'env/0':
      yield environment(scope);
      return;
    case 'length/0':
      if (input === null) yield 0;
      else if (typeof input === 'number') yield Math.abs(input);
      else if (typeof input === 'string') yield codePoints(input);
      else if (Array.isArray(input)) yield input.length;
      else if (isObject(input)) yield Object.keys(input).length;
      else throw new JqError('has no length');
      return;
    case 'utf8bytelength/0':
      if (typeof input !== 'string') throw new JqError('only strings have UTF-8 byte length');
      yield Buffer.byteLength(input, 'utf8');
      return;
    case 'type/0':
      yield typeOf(input);
      return;
    case 'keys/0':
    case 'keys_unsorted/0':
      if (Array.isArray(input)) yield input.map((_, i) => i);
      else if (isObject(input)) yield name === 'keys' ? sortedKeys(input) : Object.keys(input);
      else throw new JqError('has no keys');
      return;
    case 'has/1':
      for (const key of evaluate(args[0]!, input, scope)) {
        if (isObject(input) && typeof key === 'string') yield Object.hasOwn(input, key);
        else if (Array.isArray(input) && typeof key === 'number') return aside('has on an array');
        else throw new JqError('cannot check whether it has a key');
      }
      return;
    case 'map/1':
      yield [...values(input)].flatMap((v) => [...evaluate(args[0]!, v, scope)]);
      return;
    case 'select/1':
      for (const c of evaluate(args[0]!, input, scope)) if (truthy(c)) yield input;
      return;
    case 'add/0': {
      let sum: Json = null;
      for (const v of values(input)) sum = add(sum, v);
      yield sum;
      return;
    }
    case 'any/0':
    case 'all/0': {
      const list = [...values(input)];
      yield name === 'any' ? list.some(truthy) : list.every(truthy);
      return;
    }
    case 'tostring/0':
      yield toText(input);
      return;
    case 'tojson/0':
      yield dump(input, false);
      return;
    case 'to_entries/0':
      if (!isObject(input)) return aside('to_entries of a non-object');
      yield Object.entries(input).map(([key, value]) => ({ key, value }));
      return;
    case 'join/1':
      for (const separator of evaluate(args[0]!, input, scope)) {
        let joined: Json = null;
        for (const v of values(input)) {
          const text = v === null ? '' : typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? dump(v, false) : aside('join of a container');
          joined = add(joined === null ? '' : add(joined, separator), text);
        }
        yield joined ?? '';
      }
      return;
    case 'ascii_downcase/0':
    case 'ascii_upcase/0':
      if (typeof input !== 'string') throw new JqError('cannot change case');
      yield name === 'ascii_downcase' ? input.replace(/[A-Z]+/g, (s) => s.toLowerCase()) : input.replace(/[a-z]+/g, (s) => s.toUpperCase());
      return;
    case 'startswith/1':
    case 'endswith/1':
      for (const s of evaluate(args[0]!, input, scope)) {
        if (typeof input !== 'string' || typeof s !== 'string') throw new JqError('requires string inputs');
        yield name === 'startswith' ? input.startsWith(s) : input.endsWith(s);
      }
      return;
    case 'ltrimstr/1':
    case 'rtrimstr/1':
      for (const s of evaluate(args[0]!, input, scope)) {
        if (typeof input !== 'string' || typeof s !== 'string') yield input;
        else if (name === 'ltrimstr') yield input.startsWith(s) ? input.slice(s.length) : input;
        else yield input.endsWith(s) && s !== '' ? input.slice(0, input.length - s.length) : input;
      }
      return;
    case 'split/1':
      for (const s of evaluate(args[0]!, input, scope)) {
        if (typeof input !== 'string' || typeof s !== 'string') throw new JqError('split input and separator must be strings');
        if (s === '' || input === '') return aside('split edge');
        yield input.split(s);
      }
      return;
    case 'first/0':
      yield index(input, 0);
      return;
    case 'last/0':
      yield index(input, -1);
      return;
    case 'first/1':
      for (const v of evaluate(args[0]!, input, scope)) {
        yield v;
        return;
      }
      return;
    case 'sort/0':
      yield sortBy(input, (v) => v);
      return;
    case 'sort_by/1':
      yield sortBy(input, (v) => [...evaluate(args[0]!, v, scope)]);
      return;
    case 'unique/0': {
      const sorted = sortBy(input, (v) => v);
      yield sorted.filter((v, i) => i === 0 || compare(sorted[i - 1]!, v) !== 0);
      return;
    }
    default:
      if (args.length === 0 && Object.hasOwn(TYPE_SELECTORS, name)) {
        if (TYPE_SELECTORS[name]!(input)) yield input;
        return;
      }
      aside(`builtin ${arity}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The input: a stream of JSON values, read only when jq would read it to the same values.

// Strings (a key when a colon follows) and numbers, in a JSON text.
const TOKENS = /"([^"\\]*(?:\\.[^"\\]*)*)"(\s*:)?|-?[0-9][0-9.eE+-]*/g;

function readStream(text: string): Json[] {
  TOKENS.lastIndex = 0;
  for (let m = TOKENS.exec(text); m !== null; m = TOKENS.exec(text)) {
    if (m[1] !== undefined) {
      const raw = m[1];
      if (raw.includes('\\') && /\\u[dD][89a-fA-F]/.test(raw)) aside('surrogate escape in the input');
      if (m[2] !== undefined) checkKey(raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw);
    } else {
      const n = Number(m[0]);
      if (String(n) !== m[0]) aside('number literal in the input');
    }
  }
  try {
    return [JSON.parse(text) as Json];
  } catch {
    // NDJSON: one value a line.
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    try {
      return lines.map((line) => JSON.parse(line) as Json);
    } catch {
      return aside('input');
    }
  }
}

/** A filter parsed for the fast path, or undefined when the real jq must run it. */
export interface FastJq {
  /** jq -r's output for this input, or undefined when the real jq must run. */
  run(input: string, env: Readonly<Record<string, string | undefined>>): string | undefined;
}

export function compileFastJq(filter: string): FastJq | undefined {
  let tree: Node;
  try {
    tree = filter.trim() === '' ? { k: 'identity' } : new Parser(filter).parse();
  } catch (e) {
    if (e instanceof StepAside) return undefined;
    throw e;
  }
  if (callsOutsideFastPath(tree)) return undefined;
  return {
    run(input, env) {
      try {
        const scope = new Map<string, Json>([[ENV_KEY, jqEnvironment(env)]]);
        let out = '';
        for (const value of readStream(input)) {
          for (const result of evaluate(tree, value, scope)) out += (typeof result === 'string' ? result : dump(result, true)) + '\n';
        }
        return out;
      } catch (e) {
        if (e instanceof StepAside || e instanceof JqError) return undefined;
        // A stack overflow on a deep input: the real jq decides.
        if (e instanceof RangeError) return undefined;
        throw e;
      }
    },
  };
}

/** The environment as jq in WebAssembly sees it (src/io/jq.ts): its order, the process's values. */
function jqEnvironment(env: Readonly<Record<string, string | undefined>>): Json {
  const result: { [key: string]: Json } = {};
  const order = ['USER', 'LOGNAME', 'PATH', 'PWD', 'HOME', 'LANG', '_'];
  for (const name of order) if (env[name] !== undefined) result[name] = env[name]!;
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || order.includes(name)) continue;
    if (/^[0-9]+$/.test(name) || name === '__proto__' || name.includes('=')) return aside('environment name');
    result[name] = value;
  }
  return result;
}
