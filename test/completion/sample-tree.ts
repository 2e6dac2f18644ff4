// A small tree with what the generators must handle and the real tree does not use (yet):
// hidden commands and flags, choices of flags and arguments, repeatable and file values.
import { Argument, Command, Option } from 'commander';
import { collect } from '../../src/completion/values.js';

export function sampleTree(): Command {
  const program = new Command('svc').option('--profile <name>', 'config profile').helpCommand(false);
  program
    .command('deploy')
    .description('ship it\nsecond line of the description')
    .addOption(new Option('--mode <mode>', "how it's shipped").choices(['fast', 'safe']))
    .addOption(new Option('--internal-trace', 'for maintainers').hideHelp())
    .option('--tag <tag>', 'a tag [repeatable]', collect)
    .option('--manifest <path>', 'manifest file')
    .addArgument(new Argument('<target>', 'where to').choices(['staging', 'production']))
    .argument('[note]');
  program.command('secret-admin', { hidden: true }).description('not for users');
  const group = program.command('group').description('a noun with verbs');
  group.command('leaf').description('a verb [with brackets]: and a colon');
  return program;
}
