// What both halves of the start share for help (dist/start.cjs, built on its own, and the
// bundle's src/main.ts): writing a text whole to standard output's descriptor, and the slot
// in which main keeps the root help it printed (src/startup/root-help.ts).
import { writeSync } from 'node:fs';

/** Where src/main.ts finds the slot to keep the root help it printed. */
export const ROOT_HELP_SLOT = Symbol.for('svc.rootHelp');

export interface RootHelpSlot {
  save(text: string): void;
}

/**
 * Writes `text` whole to fd 1 now. False when its reader has gone (EPIPE: no failure, there is
 * nobody to tell); what a full non-blocking pipe refuses goes to `whenFull`, which waits for it.
 */
export function writeToFd1(text: string, whenFull: (rest: Buffer) => void): boolean {
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(1, bytes, written);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') return false;
    if (code !== 'EAGAIN') throw error;
    whenFull(bytes.subarray(written));
  }
  return true;
}
