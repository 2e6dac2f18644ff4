// Colours bound to the IO object's colour decision (never chalk's own detection).
import { Chalk, type ChalkInstance } from 'chalk';
import type { IOStreams } from './streams.js';

const plain = new Chalk({ level: 0 });
const colored = new Chalk({ level: 1 });

export function theme(io: Pick<IOStreams, 'color'>): ChalkInstance {
  return io.color ? colored : plain;
}
