// Which C library this Node runs on (Linux), as libsql's loader needs to know to pick its
// native build: read from the program interpreter this process was started with (the ELF
// header of /proc/self/exe), the first way detect-libc tries too. Answering it here spares
// every command that opens a SQLite file loading detect-libc, which loads child_process on
// the way (2.6-2.8 ms of a one-receipt `receipt send`).
import { closeSync, openSync, readSync } from 'node:fs';

export type LibcFamily = 'glibc' | 'musl';

/** The first bytes of an executable: its ELF header and program headers fit (detect-libc reads as much). */
const HEAD_BYTES = 2048;

/** The family named by a 64-bit little-endian ELF's PT_INTERP, or undefined when it names none known. */
export function libcOfElf(elf: Buffer): LibcFamily | undefined {
  if (elf.length < 64 || elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2 || elf[5] !== 1) return undefined;
  const offset = Number(elf.readBigUInt64LE(32));
  const size = elf.readUInt16LE(54);
  const count = elf.readUInt16LE(56);
  for (let i = 0; i < count; i++) {
    const header = offset + i * size;
    if (header + 40 > elf.length) return undefined;
    if (elf.readUInt32LE(header) !== 3) continue;
    const start = Number(elf.readBigUInt64LE(header + 8));
    const end = start + Number(elf.readBigUInt64LE(header + 32));
    if (end > elf.length) return undefined;
    const interpreter = elf.subarray(start, end).toString('latin1');
    if (interpreter.includes('/ld-musl-')) return 'musl';
    if (interpreter.includes('/ld-linux-')) return 'glibc';
    return undefined;
  }
  return undefined;
}

/** This process's C library, or undefined where it cannot be told this way (then ask detect-libc). */
export function libcOfThisProcess(): LibcFamily | undefined {
  let fd: number | undefined;
  try {
    fd = openSync('/proc/self/exe', 'r');
    const head = Buffer.alloc(HEAD_BYTES);
    return libcOfElf(head.subarray(0, readSync(fd, head, 0, HEAD_BYTES, 0)));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
