// Prompts bound to the IO streams (so tests answer them through stdin), refused with a
// usage error naming the flag or variable when nobody can answer.
import { CancelError, UsageError } from '../errors.js';
import { canPrompt, type IOStreams } from './streams.js';

export interface Ask {
  message: string;
  /** The flag or variable that supplies the value without a prompt, for the error. */
  flag: string;
}

export interface Prompter {
  input(ask: Ask & { default?: string }): Promise<string>;
  password(ask: Ask): Promise<string>;
  confirm(ask: Ask & { default?: boolean }): Promise<boolean>;
  select<T extends string>(ask: Ask & { choices: readonly { name: string; value: T }[] }): Promise<T>;
}

export function createPrompter(io: IOStreams): Prompter {
  const guard = (ask: Ask) => {
    if (!canPrompt(io)) {
      throw new UsageError(`${ask.message.replace(/[?:]\s*$/, '')}: no value and prompts are off`, {
        hint: `pass ${ask.flag}`,
      });
    }
  };
  const context = () => ({ input: io.stdin, output: io.stderr, clearPromptOnDone: false });
  const cancelled = (error: unknown): never => {
    if (error instanceof Error && error.name === 'ExitPromptError') throw new CancelError('cancelled');
    throw error;
  };
  return {
    async input(ask) {
      guard(ask);
      const { input } = await import('@inquirer/prompts');
      return input({ message: ask.message, default: ask.default }, context()).catch(cancelled);
    },
    async password(ask) {
      guard(ask);
      const { password } = await import('@inquirer/prompts');
      return password({ message: ask.message, mask: '*' }, context()).catch(cancelled);
    },
    async confirm(ask) {
      guard(ask);
      const { confirm } = await import('@inquirer/prompts');
      return confirm({ message: ask.message, default: ask.default ?? false }, context()).catch(cancelled);
    },
    async select(ask) {
      guard(ask);
      const { select } = await import('@inquirer/prompts');
      return select({ message: ask.message, choices: ask.choices.map((c) => ({ ...c })) }, context()).catch(cancelled);
    },
  };
}
