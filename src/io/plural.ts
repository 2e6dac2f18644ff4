// "1 device", "3 devices": counts in messages as people write them.

/** `n` and the noun, in the plural unless n is 1 (`plural` when it is not the noun + s). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
