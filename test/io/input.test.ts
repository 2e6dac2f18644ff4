import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryConfigStore } from '../../src/config/store.js';
import { UsageError } from '../../src/errors.js';
import { createFactory, type Factory } from '../../src/factory.js';
import { jsonSyntaxError, readJsonInput } from '../../src/io/input.js';
import { testStreams, type TestStreams } from '../../src/io/test-streams.js';
import { memorySecretStore } from '../../src/secrets/store.js';

describe('jsonSyntaxError', () => {
  it.each(['{}', '[]', '0', '-1.5e+3', '"a\\u00e9\\n"', ' {"a": [1, true, false, null, {"b": "c"}]} '])('accepts %s', (text) => {
    expect(JSON.parse(text)).toBeDefined();
    expect(jsonSyntaxError(text)).toBeUndefined();
  });

  it.each([
    ['{"a":}', 5, "unexpected '}'"],
    ['{"a":1,}', 7, "trailing comma before '}'"],
    ['[1,2,]', 5, "trailing comma before ']'"],
    ['{"a":1', 6, 'unexpected end of input'],
    ["{'a':1}", 1, "unexpected '''"],
    ['{"a" 1}', 5, "unexpected '1'"],
    ['{"a":"x\ny"}', 7, 'line break or control character inside a string (write it as \\n, \\t, ...)'],
    ['"\\x"', 1, 'invalid escape sequence in a string'],
    ['"abc', 4, 'unterminated string'],
    ['01', 1, "unexpected '1'"],
    ['{} {}', 3, "unexpected '{'"],
    ['tru', 0, "unexpected 't'"],
  ])('finds the error in %j', (text, offset, problem) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(jsonSyntaxError(text)).toEqual({ offset, problem });
  });
});

describe('readJsonInput', () => {
  let dir: string;
  let t: TestStreams;
  let f: Factory;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-input-'));
    t = testStreams();
    f = createFactory({
      env: {},
      globals: { json: false, input: false, debug: false, color: false },
      io: t.io,
      config: memoryConfigStore(),
      secrets: memorySecretStore(),
    });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function failure(path: string): Promise<UsageError> {
    const error = await readJsonInput(path, f).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }

  it('reads a file, byte order mark and all', async () => {
    await writeFile(join(dir, 'a.json'), '\ufeff{"a":1}');
    expect(await readJsonInput(join(dir, 'a.json'), f)).toEqual({ a: 1 });
  });

  it('reads standard input for -', async () => {
    t.input.end('[1, 2]');
    expect(await readJsonInput('-', f)).toEqual([1, 2]);
  });

  it('gives line and column, and never the text', async () => {
    await writeFile(join(dir, 'a.json'), '{\n  "card": "4111111111111111"\n  "x": 1\n}');
    const error = await failure(join(dir, 'a.json'));
    expect(error.message).toBe(`${join(dir, 'a.json')} is not valid JSON: unexpected '"' at line 3, column 3`);
  });

  it('names standard input, a missing file, a directory and an empty file', async () => {
    t.input.end('{');
    expect((await failure('-')).message).toBe('standard input is not valid JSON: unexpected end of input at line 1, column 2');
    expect((await failure(join(dir, 'none.json'))).message).toBe(`cannot read ${join(dir, 'none.json')}: no such file`);
    expect((await failure(dir)).message).toBe(`cannot read ${dir}: it is a directory`);
    await writeFile(join(dir, 'empty.json'), ' \n');
    expect((await failure(join(dir, 'empty.json'))).message).toBe(`${join(dir, 'empty.json')} is empty`);
  });
});
