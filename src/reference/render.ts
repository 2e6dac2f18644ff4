// The reference as files, by path from the repository's root: what `npm run docs`
// (scripts/gen-docs.mjs) writes and what test/reference/ compares with the committed copies.
import type { Command } from 'commander';
import { manPage } from './man.js';
import { markdownIndex, markdownPage } from './markdown.js';
import { describeReference } from './model.js';

export const REFERENCE_DIRS = ['docs/commands', 'docs/man'] as const;

export function renderReference(program: Command): Map<string, string> {
  const reference = describeReference(program);
  const files = new Map<string, string>([['docs/commands/README.md', markdownIndex(reference)]]);
  for (const entry of reference.commands) {
    files.set(`docs/commands/${entry.slug}.md`, markdownPage(entry, reference));
    files.set(`docs/man/${entry.slug}.1`, manPage(entry, reference));
  }
  return files;
}
