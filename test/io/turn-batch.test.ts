import { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { turnBatch } from '../../src/io/turn-batch.js';

/** A stream that records each system-call-like write: one entry per _write or _writev. */
function recorder() {
  const calls: string[][] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      calls.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      calls.push(chunks.map((c) => String(c.chunk)));
      done();
    },
  });
  return { stream, calls };
}

describe('turnBatch', () => {
  it('writes the lines of one turn to each stream in one go, in the order written', async () => {
    const out = recorder();
    const err = recorder();
    const lines = turnBatch([out.stream, err.stream]);
    for (let i = 0; i < 50; i++) {
      lines.hold();
      err.stream.write(`--> event ${i}\n`);
      out.stream.write(`{"n":${i}}\n`);
    }
    // A write that does not hold (a warning) during the same turn keeps its place.
    err.stream.write('warning: after 49\n');
    expect(out.calls).toEqual([]);
    await nextTurn();
    expect(out.calls).toHaveLength(1);
    expect(out.calls[0]).toEqual(Array.from({ length: 50 }, (_, i) => `{"n":${i}}\n`));
    expect(err.calls).toHaveLength(1);
    expect(err.calls[0]?.at(-1)).toBe('warning: after 49\n');
    expect(err.calls[0]?.[49]).toBe('--> event 49\n');
  });

  it('writes at once after the turn, and on flush()', async () => {
    const out = recorder();
    const lines = turnBatch([out.stream]);
    lines.hold();
    out.stream.write('a\n');
    lines.flush();
    expect(out.calls).toEqual([['a\n']]);
    // Not held any more: the next write goes straight out.
    out.stream.write('b\n');
    expect(out.calls).toEqual([['a\n'], ['b\n']]);
    await nextTurn();
    lines.hold();
    out.stream.write('c\n');
    await nextTurn();
    expect(out.calls).toEqual([['a\n'], ['b\n'], ['c\n']]);
  });

  it('leaves a stream corked by someone else corked', async () => {
    const out = recorder();
    out.stream.cork();
    const lines = turnBatch([out.stream]);
    lines.hold();
    out.stream.write('a\n');
    await nextTurn();
    expect(out.stream.writableCorked).toBe(1);
    expect(out.calls).toEqual([]);
    out.stream.uncork();
    expect(out.calls).toEqual([['a\n']]);
  });

  it('written() resolves once every line of the turn, those after the call too, is handed on; not while the reader holds back', async () => {
    // A stream whose writes complete only when let go: a pipe whose reader stopped reading.
    const handedOn: string[] = [];
    const waiting: (() => void)[] = [];
    const stream = new Writable({
      writev(chunks, done) {
        waiting.push(() => {
          handedOn.push(...chunks.map((c) => String(c.chunk)).filter((c) => c !== ''));
          done();
        });
      },
    });
    const lines = turnBatch([stream]);
    let resolved = false;
    lines.hold();
    stream.write('a\n');
    const first = lines.written().then(() => (resolved = true));
    lines.hold();
    stream.write('b\n');
    // The same turn: one promise, which covers b, written after it was asked for.
    expect(lines.written()).toBe(lines.written());
    await nextTurn();
    await nextTurn();
    expect(resolved).toBe(false);
    expect(waiting).toHaveLength(1);
    waiting.shift()?.();
    await first;
    expect(handedOn).toEqual(['a\n', 'b\n']);
    // Not held: what was written so far.
    stream.write('c\n');
    const later = lines.written();
    await nextTurn();
    let laterResolved = false;
    void later.then(() => (laterResolved = true));
    await nextTurn();
    expect(laterResolved).toBe(false);
    while (waiting.length > 0) waiting.shift()?.();
    await later;
    expect(handedOn).toEqual(['a\n', 'b\n', 'c\n']);
  });

  it('written() rejects with the stream\'s write error (a reader gone)', async () => {
    const stream = new Writable({
      write(_chunk, _encoding, done) {
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    stream.on('error', () => undefined);
    const lines = turnBatch([stream]);
    lines.hold();
    stream.write('a\n');
    await expect(lines.written()).rejects.toThrow('EPIPE');
  });
});
