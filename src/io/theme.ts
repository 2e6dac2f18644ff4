// Colours bound to the IO object's colour decision (never chalk's own detection).
import { Chalk, type ChalkInstance } from 'chalk';
import type { IOStreams } from './streams.js';

const plain = new Chalk({ level: 0 });
const colored = new Chalk({ level: 1 });

/** Colours for what goes to `stream` (stderr by default), each stream deciding for itself. */
export function theme(io: Pick<IOStreams, 'color' | 'stdoutColor'>, stream: 'stdout' | 'stderr' = 'stderr'): ChalkInstance {
  return (stream === 'stdout' ? (io.stdoutColor ?? io.color) : io.color) ? colored : plain;
}
