// Splits a JSON array arriving in pieces (an HTTP body as it streams in) into the text of
// each element, as soon as the element is complete, so that work on the first elements can
// start while the rest is still on its way. It finds where elements begin and end (nesting,
// strings and their escapes) and checks the array's own punctuation; what is inside an
// element is checked by whoever parses it (JSON.parse), so nothing is parsed twice.

/** The text is not a JSON array (or not a complete one). */
export class JsonArraySyntaxError extends Error {
  override readonly name = 'JsonArraySyntaxError';
}

type Phase = 'open' | 'first' | 'element' | 'after' | 'next' | 'closed';

// The characters that matter inside a container element: nesting and the start of a string.
const STRUCTURE = /[{}[\]"]/g;
const WHITESPACE = /[^ \t\n\r]/g;
// A number, true, false or null ends at the first character that cannot continue it.
const SCALAR_END = /[ \t\n\r,\]]/g;

export class JsonArraySplitter {
  #text = '';
  /** Next index of #text to examine. */
  #at = 0;
  /** Where the element being read starts in #text. */
  #start = 0;
  #phase: Phase = 'open';
  #depth = 0;
  #inString = false;
  #elements = 0;

  /** Elements seen so far. */
  get count(): number {
    return this.#elements;
  }

  /** Feeds the next piece of text; returns the elements it completed, in order. */
  push(piece: string): string[] {
    if (piece.length === 0) return [];
    this.#text += piece;
    const done: string[] = [];
    while (this.#at < this.#text.length) {
      if (this.#phase === 'element') {
        const end = this.#elementEnd();
        if (end === undefined) break;
        done.push(this.#text.slice(this.#start, end));
        this.#elements += 1;
        this.#at = end;
        this.#phase = 'after';
        continue;
      }
      const at = this.#skipWhitespace();
      if (at === undefined) break;
      this.#punctuation(this.#text[at]!, at);
    }
    // Keep only what the next piece may still need: the element under way.
    const keep = this.#phase === 'element' ? this.#start : this.#at;
    if (keep > 0) {
      this.#text = this.#text.slice(keep);
      this.#at -= keep;
      this.#start -= keep;
    }
    return done;
  }

  /** The text has ended: throws unless it held one whole array. */
  end(): void {
    if (this.#phase !== 'closed') throw new JsonArraySyntaxError(this.#phase === 'open' ? 'no JSON array' : 'the array is not closed');
  }

  #skipWhitespace(): number | undefined {
    WHITESPACE.lastIndex = this.#at;
    const found = WHITESPACE.exec(this.#text);
    if (found === null) {
      this.#at = this.#text.length;
      return undefined;
    }
    return found.index;
  }

  #punctuation(char: string, at: number): void {
    switch (this.#phase) {
      case 'open':
        if (char !== '[') throw new JsonArraySyntaxError('no JSON array');
        this.#phase = 'first';
        this.#at = at + 1;
        return;
      case 'first':
      case 'next':
        if (char === ']' && this.#phase === 'first') {
          this.#phase = 'closed';
          this.#at = at + 1;
          return;
        }
        if (char === ',' || char === ']' || char === '}' || char === ':') throw new JsonArraySyntaxError(`unexpected "${char}" in the array`);
        this.#phase = 'element';
        this.#start = at;
        this.#at = at;
        this.#depth = 0;
        this.#inString = false;
        return;
      case 'after':
        if (char === ',') this.#phase = 'next';
        else if (char === ']') this.#phase = 'closed';
        else throw new JsonArraySyntaxError(`expected "," or "]" after element ${this.#elements}`);
        this.#at = at + 1;
        return;
      case 'closed':
        throw new JsonArraySyntaxError('text after the end of the array');
      case 'element':
        return;
    }
  }

  #isScalarStart(): boolean {
    const first = this.#text[this.#start];
    return first !== '{' && first !== '[' && first !== '"';
  }

  /** The index just past the element under way, or undefined when it continues in the next piece. */
  #elementEnd(): number | undefined {
    const text = this.#text;
    if (this.#at === this.#start && this.#isScalarStart()) {
      SCALAR_END.lastIndex = this.#start;
      const found = SCALAR_END.exec(text);
      if (found === null) return undefined; // its end may be in the next piece
      return found.index;
    }
    let at = this.#at;
    for (;;) {
      if (this.#inString) {
        const quote = closingQuote(text, at);
        if (quote === undefined) {
          // Escapes are counted backwards from a quote, so the next piece can resume at its start.
          this.#at = text.length;
          return undefined;
        }
        this.#inString = false;
        at = quote + 1;
        if (this.#depth === 0) return at; // the element was a string
        continue;
      }
      STRUCTURE.lastIndex = at;
      const found = STRUCTURE.exec(text);
      if (found === null) {
        this.#at = text.length;
        return undefined;
      }
      const char = found[0];
      at = found.index + 1;
      if (char === '"') this.#inString = true;
      else if (char === '{' || char === '[') this.#depth += 1;
      else if (--this.#depth === 0) return at;
    }
  }
}

/** The index of the quote that ends a string whose content starts at or before `from`. */
function closingQuote(text: string, from: number): number | undefined {
  let at = from;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote === -1) return undefined;
    let backslashes = 0;
    for (let i = quote - 1; text.charCodeAt(i) === 92; i--) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}
