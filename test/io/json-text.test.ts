// Every JSON svc prints escapes C1 controls and bidi formatting characters: customer text
// with U+009B (a terminal's CSI) or U+202E (right-to-left override) cannot steer a terminal
// or reorder what a person reads, and the value parsed back is the same.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonText } from '../../src/io/output.js';

describe('jsonText', () => {
  it('escapes U+0080–U+009F and the bidi controls, and parses back to the same value', () => {
    const note = 'refund \u009b31m now \u202eevil\u202c ok \u2066x\u2069 \u200f é 😀';
    const text = jsonText({ note }, 2);
    expect(text).toContain('\\u009b');
    expect(text).toContain('\\u202e');
    expect(text).toContain('\\u2066');
    expect(text).toContain('é 😀');
    expect(text).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f]/);
    expect(JSON.parse(text)).toEqual({ note });
  });

  it('escapes DEL, the line and paragraph separators and the zero-width no-break space too', () => {
    const note = 'a\u007fb\u2028c\u2029d\ufeffe';
    const text = jsonText({ note });
    expect(text).toBe('{"note":"a\\u007fb\\u2028c\\u2029d\\ufeffe"}');
    expect(JSON.parse(text)).toEqual({ note });
  });

  it('is what every JSON writer of src/ uses (no JSON.stringify written straight to a stream)', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts') && /\.(stdout|stderr)\.write\(`\$\{JSON\.stringify/.test(readFileSync(path, 'utf8'))) offenders.push(path);
      }
    };
    walk(join(import.meta.dirname, '../../src'));
    expect(offenders).toEqual([]);
  });
});
