// SQLite's rare I/O errors under many processes (seen once in CI: "disk I/O error" among eight
// processes claiming in one token file) are retried a few times; other errors are not.
import { describe, expect, it } from 'vitest';
import { isIoError, retryIo } from '../../src/store/embedded/sqlite.js';

const ioError = () => Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_SHORT_READ' });

describe('retryIo', () => {
  it('tries again after an I/O error and returns what the statement returns', () => {
    let calls = 0;
    expect(
      retryIo(() => {
        calls++;
        if (calls < 3) throw ioError();
        return 'done';
      }),
    ).toBe('done');
    expect(calls).toBe(3);
  });

  it('gives up after its tries with the I/O error, and never retries another error', () => {
    let calls = 0;
    expect(() => retryIo(() => { calls++; throw ioError(); }, 4)).toThrow('disk I/O error');
    expect(calls).toBe(4);
    calls = 0;
    expect(() => retryIo(() => { calls++; throw Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT' }); })).toThrow('UNIQUE');
    expect(calls).toBe(1);
  });

  it('knows SQLite I/O errors by code or message', () => {
    expect(isIoError(ioError())).toBe(true);
    expect(isIoError(new Error('disk I/O error'))).toBe(true);
    expect(isIoError(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))).toBe(false);
  });
});
