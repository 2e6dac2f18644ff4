// `svc help [environment | exit-codes | NOUN [VERB]]`: a command's help, or a topic; exit 0.
// An unknown topic is a usage error (exit 2) naming what there is.
import type { Command } from 'commander';

export function registerHelp(program: Command): void {
  program
    .command('help')
    .description('help on a command (svc help credit-note issue), or a topic: environment, exit-codes')
    .argument('[topic...]', 'a command path, environment, or exit-codes')
    .action(async (topic: string[]) => {
      if (topic.length === 0) return program.outputHelp();
      const [first] = topic;
      if (topic.length === 1 && (first === 'environment' || first === 'env')) return void process.stdout.write(await fitted((await import('./topics.js')).ENVIRONMENT));
      if (topic.length === 1 && (first === 'exit-codes' || first === 'exit')) return void process.stdout.write(await fitted((await import('./topics.js')).EXIT_CODES));
      let target: Command = program;
      for (const name of topic) {
        const next = target.commands.find((c) => c.name() === name || c.aliases().includes(name));
        if (!next) {
          // The commands help lists: hidden ones (`__complete`, the shells' helper) are no topic.
          const known = program.createHelp().visibleCommands(target).map((c) => c.name()).filter((n) => n !== 'help');
          const where = target === program ? 'svc' : `svc ${topic.slice(0, topic.indexOf(name)).join(' ')}`;
          program.error(`error: no help topic "${topic.join(' ')}": ${where} has ${known.join(', ')}${target === program ? ', and the topics environment and exit-codes' : ''}`, {
            code: 'svc.unknownHelpTopic',
            exitCode: 2,
          });
        }
        target = next;
      }
      target.outputHelp();
    });
}

/** A topic wrapped at word boundaries to the terminal it is read on (whole when piped), each continuation under its text. */
async function fitted(text: string): Promise<string> {
  const { wrapText } = await import('../io/wrap.js');
  return wrapText(text, process.stdout.isTTY ? process.stdout.columns : undefined, { columns: true });
}
