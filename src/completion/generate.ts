// Completion scripts generated from the commander tree, so that they cannot disagree with
// it: `svc completion SHELL` prints one, and completions/ holds them for packagers.
import type { Command } from 'commander';
import { bashCompletion } from './bash.js';
import { fishCompletion } from './fish.js';
import { zshCompletion } from './zsh.js';

export { bashCompletion, fishCompletion, zshCompletion };

export type Shell = 'bash' | 'zsh' | 'fish';

export const generators: Readonly<Record<Shell, (program: Command) => string>> = {
  bash: bashCompletion,
  zsh: zshCompletion,
  fish: fishCompletion,
};
