import type { Command } from 'commander';
import { generators, type Shell } from '../../completion/generate.js';
import type { Factory } from '../../factory.js';

export interface CompletionOptions {
  shell: Shell;
  /** The root of the tree to describe: the one being run, so the script cannot disagree with it. */
  program: Command;
}

export async function run(opts: CompletionOptions, f: Factory): Promise<void> {
  f.io.stdout.write(generators[opts.shell](opts.program));
}
