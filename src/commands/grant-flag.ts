// `--grant SELECTOR` on every verb that acts for a company: it reaches the factory's settings
// as a global (context.ts's globalsOf), so every token the verb asks for is that company's.
import type { Command } from 'commander';

export const GRANT_FLAG_HELP = "the company to act for: a Grant ID or 6+ of its characters, a tax ID, or part of the company's name (default: SVC_GRANT_ID, then the profile's Grant)";

export function grantOption(cmd: Command): Command {
  return cmd.option('--grant <selector>', GRANT_FLAG_HELP);
}
