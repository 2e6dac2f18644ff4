// Verbs of CLI.md whose capability has not landed yet. They are in the tree so that help,
// completion and scripts see the whole surface; running one says so plainly (exit 1).
import { SvcError } from '../errors.js';
import type { Verb } from './context.js';

export function notYet(command: string): () => Promise<Verb<unknown>> {
  return async () => ({
    async run() {
      throw new SvcError(`\`svc ${command}\` is not available in this version yet`, {
        hint: 'see README.md for what this build covers',
      });
    },
  });
}
