// Telling glibc from musl by this process's ELF interpreter (src/store/embedded/libc.ts), which
// spares the ledger's commands loading detect-libc: checked against detect-libc itself, and on
// made-up ELF headers for the C library this machine does not have.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { libcOfElf, libcOfThisProcess } from '../../src/store/embedded/libc.js';

/** A 64-bit little-endian ELF header with a PT_LOAD and, when given, a PT_INTERP naming `interpreter`. */
function elf(interpreter: string | undefined): Buffer {
  const phoff = 64;
  const phentsize = 56;
  const count = interpreter === undefined ? 1 : 2;
  const text = Buffer.from(`${interpreter ?? ''}\0`, 'latin1');
  const at = phoff + count * phentsize;
  const out = Buffer.alloc(at + text.length);
  out.writeUInt32BE(0x7f454c46, 0);
  out[4] = 2; // 64-bit
  out[5] = 1; // little-endian
  out.writeBigUInt64LE(BigInt(phoff), 32);
  out.writeUInt16LE(phentsize, 54);
  out.writeUInt16LE(count, 56);
  out.writeUInt32LE(1, phoff); // PT_LOAD
  if (interpreter !== undefined) {
    const header = phoff + phentsize;
    out.writeUInt32LE(3, header); // PT_INTERP
    out.writeBigUInt64LE(BigInt(at), header + 8);
    out.writeBigUInt64LE(BigInt(text.length), header + 32);
    text.copy(out, at);
  }
  return out;
}

describe('the C library of an executable', () => {
  it('is named by its interpreter: ld-musl is musl, ld-linux is glibc', () => {
    expect(libcOfElf(elf('/lib/ld-musl-x86_64.so.1'))).toBe('musl');
    expect(libcOfElf(elf('/lib/ld-musl-aarch64.so.1'))).toBe('musl');
    expect(libcOfElf(elf('/lib64/ld-linux-x86-64.so.2'))).toBe('glibc');
    expect(libcOfElf(elf('/lib/ld-linux-aarch64.so.1'))).toBe('glibc');
  });

  it('is not told by a static executable, another interpreter, a header cut short or not ELF at all', () => {
    expect(libcOfElf(elf(undefined))).toBeUndefined();
    expect(libcOfElf(elf('/system/bin/linker64'))).toBeUndefined();
    expect(libcOfElf(elf('/lib/ld-musl-x86_64.so.1').subarray(0, 100))).toBeUndefined();
    expect(libcOfElf(Buffer.from('#!/bin/sh\necho not an executable of this kind\n'.repeat(4)))).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')("this process's answer is detect-libc's", () => {
    const fromLibsql = createRequire(createRequire(import.meta.url).resolve('libsql'));
    const { familySync } = fromLibsql('detect-libc') as { familySync: () => string | null };
    expect(libcOfThisProcess()).toBe(familySync());
  });
});
