import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonArraySplitter, JsonArraySyntaxError } from '../../src/io/json-array-splitter.js';

/** Feeds `text` in pieces cut at `cuts` and returns every element text. */
function split(text: string, cuts: number[] = []): string[] {
  const splitter = new JsonArraySplitter();
  const out: string[] = [];
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    out.push(...splitter.push(text.slice(from, cut)));
    from = Math.max(from, cut);
  }
  out.push(...splitter.push(text.slice(from)));
  splitter.end();
  return out;
}

describe('JsonArraySplitter', () => {
  it('gives each element as its own text', () => {
    const text = ' [ {"a":1,"b":"x}]\\"{"} , [1,[2]] ,"s,\\\\",3.5e2,true,null ,{}]\n';
    expect(split(text)).toEqual(['{"a":1,"b":"x}]\\"{"}', '[1,[2]]', '"s,\\\\"', '3.5e2', 'true', 'null', '{}']);
  });

  it('handles an empty array and whitespace', () => {
    expect(split('[]')).toEqual([]);
    expect(split('\n [ \t]\n')).toEqual([]);
  });

  it('completes an element as soon as its last character arrives', () => {
    const splitter = new JsonArraySplitter();
    expect(splitter.push('[{"a":"\\')).toEqual([]);
    expect(splitter.push('"}"}')).toEqual(['{"a":"\\"}"}']);
    expect(splitter.push(',12')).toEqual([]);
    expect(splitter.push('3]')).toEqual(['123']);
    expect(splitter.count).toBe(2);
    splitter.end();
  });

  it.each([
    ['', 'no JSON array'],
    ['{"a":1}', 'no JSON array'],
    ['[{"a":1}', 'the array is not closed'],
    ['[{"a":1},', 'the array is not closed'],
    ['[1,]', 'unexpected "]"'],
    ['[,1]', 'unexpected ","'],
    ['[{"a":1} {"b":2}]', 'expected "," or "]" after element 1'],
    ['[1] 2', 'text after the end of the array'],
    ['["abc', 'the array is not closed'],
  ])('refuses %j: %s', (text, message) => {
    expect(() => split(text)).toThrow(JsonArraySyntaxError);
    expect(() => split(text)).toThrow(message);
  });

  it('splits any JSON array, cut anywhere, into texts that parse to its elements', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue()),
        fc.array(fc.nat()),
        fc.constantFrom(0, 2),
        (values, cuts, indent) => {
          const text = JSON.stringify(values, null, indent);
          const elements = split(
            text,
            cuts.map((c) => c % (text.length + 1)),
          );
          expect(elements.map((e) => JSON.parse(e))).toEqual(JSON.parse(text));
        },
      ),
      { numRuns: 300 },
    );
  });
});
