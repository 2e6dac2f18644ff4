// Prompts bound to the IO streams (so tests answer them through stdin), refused with a
// usage error naming the flag or variable when nobody can answer. Ctrl-C at any prompt, and
// Esc at a choice (select, key) or a line of text (input, confirm), is a CancelError (exit 3).
import type { Readable } from 'node:stream';
import { CancelError, UsageError } from '../errors.js';
import { canPrompt, type IOStreams } from './streams.js';
import { wrapText } from './wrap.js';

export interface Ask {
  message: string;
  /** The flag or variable that supplies the value without a prompt, for the error. */
  flag: string;
}

export interface Prompter {
  /**
   * `validate` answers true, or what is wrong with the value (the prompt asks again);
   * `editable`: the default stands in the line, to be edited, instead of beside it;
   * `typed`: told the line as it is typed, so a caller keeps it when the prompt is left (Esc).
   */
  input(ask: Ask & { default?: string; editable?: boolean; validate?: (value: string) => true | string; typed?: (value: string) => void }): Promise<string>;
  password(ask: Ask): Promise<string>;
  confirm(ask: Ask & { default?: boolean }): Promise<boolean>;
  /** `short` is what stays on the screen once chosen (default: `name`). */
  select<T extends string>(ask: Ask & { choices: readonly { name: string; value: T; short?: string }[] }): Promise<T>;
  /** One key press, no Enter: the key of the chosen entry. */
  key<T extends string>(ask: Ask & { keys: readonly { key: T; name: string }[] }): Promise<T>;
  /**
   * Until disposed, what is typed while no prompt is on screen (a move under way) is dropped:
   * a key typed ahead answers no prompt that was not there yet (a walk's `a c y` is an accept,
   * not a completion confirmed). Ctrl-C still stops the command.
   */
  dropTypeAhead?(): { dispose(): void };
}

/**
 * A question that must be answered yes to go on: n, Esc or Ctrl-C is a CancelError saying
 * what did not happen (`unless`). Esc leaves the question; it is never taken as its answer.
 */
export async function confirmOrCancel(prompter: Prompter, ask: Ask & { default?: boolean }, unless: string): Promise<void> {
  let ok: boolean;
  try {
    ok = await prompter.confirm(ask);
  } catch (error) {
    if (error instanceof CancelError) throw new CancelError(unless);
    throw error;
  }
  if (!ok) throw new CancelError(unless);
}

/**
 * A question whose Esc or Ctrl-C cancels a move (a reject's reason, an accepted part): the
 * cancellation says what did not happen, as `confirmOrCancel`'s does, not a bare "cancelled".
 */
export async function inputOrCancel(prompter: Prompter, ask: Parameters<Prompter['input']>[0], unless: string): Promise<string> {
  try {
    return await prompter.input(ask);
  } catch (error) {
    if (error instanceof CancelError) throw new CancelError(unless);
    throw error;
  }
}

export function createPrompter(io: IOStreams): Prompter {
  // What the prompt needed and why svc could not ask, in words ("no value and prompts are off" read as jargon).
  const guard = (ask: Ask, needs: 'a value' | 'your confirmation' | 'a choice' = 'a value') => {
    if (!canPrompt(io)) {
      const why = io.noInput ? 'prompts are off (--no-input, or CI)' : 'this is not a terminal';
      throw new UsageError(`${ask.message.replace(/[?:]\s*$/, '')}: needs ${needs}, and svc cannot ask: ${why}`, {
        hint: `pass ${ask.flag}`,
      });
    }
  };
  // The question laid out at the terminal's width, at words, after the prompt's mark ("? "):
  // the prompt library breaks an overlong line where the width falls and keeps the space
  // there at the head of the next line.
  const fitted = (message: string) => (io.columns > 2 ? wrapText(`? ${message}`, io.columns).slice(2) : message);
  const context = (signal?: AbortSignal) => ({ input: io.stdin, output: io.stderr, clearPromptOnDone: false, ...(signal ? { signal } : {}) });
  const cancelled = (error: unknown): never => {
    if (error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError')) throw new CancelError('cancelled');
    throw error;
  };
  const prompts: Prompter = {
    async input(ask) {
      guard(ask);
      const { input } = await import('@inquirer/prompts');
      const typed = ask.typed;
      const config = {
        message: fitted(ask.message),
        default: ask.default,
        ...(ask.editable ? { prefill: 'editable' as const } : {}),
        ...(ask.validate ? { validate: ask.validate } : {}),
        ...(typed ? { transformer: (value: string) => (typed(value), value) } : {}),
      };
      const escape = escapeAborts(io.stdin);
      try {
        return await input(config, context(escape.signal)).catch(cancelled);
      } finally {
        escape.dispose();
      }
    },
    async password(ask) {
      guard(ask);
      const { password } = await import('@inquirer/prompts');
      return password({ message: fitted(ask.message), mask: '*' }, context()).catch(cancelled);
    },
    async confirm(ask) {
      guard(ask, 'your confirmation');
      // Only y, yes, n or no (any case), or Enter for the default: keys typed ahead, or
      // anything else that merely starts with "y", are asked again, never taken as a yes.
      const { input } = await import('@inquirer/prompts');
      const fallback = ask.default ?? false;
      // Typed before the question was there (`… --complete`, Enter, y, Enter while svc starts):
      // no answer to it.
      await dropTypedAhead(io);
      const escape = escapeAborts(io.stdin);
      try {
        const answer = await input(
          {
            message: fitted(`${ask.message} ${fallback ? '(Y/n)' : '(y/N)'}`),
            validate: (value: string) => (yesOrNo(value, fallback) === undefined ? 'answer y (yes) or n (no)' : true),
            // Answered, the line keeps the answer as taken: Enter alone shows the default it stood for.
            transformer: (value: string, { isFinal }: { isFinal: boolean }) => (isFinal ? (yesOrNo(value, fallback) ? 'Yes' : 'No') : value),
          },
          context(escape.signal),
        ).catch(cancelled);
        return yesOrNo(answer, fallback) ?? fallback;
      } finally {
        escape.dispose();
      }
    },
    async select(ask) {
      guard(ask, 'a choice');
      const { select } = await import('@inquirer/prompts');
      const escape = escapeAborts(io.stdin);
      try {
        return await select({ message: fitted(ask.message), choices: ask.choices.map((c) => ({ ...c })) }, context(escape.signal)).catch(cancelled);
      } finally {
        escape.dispose();
      }
    },
    async key(ask) {
      guard(ask, 'a choice');
      const { keyPrompt } = await import('./key-prompt.js');
      const chosen = await keyPrompt({ message: ask.message, keys: ask.keys }, context()).catch(cancelled);
      if (chosen === undefined) throw new CancelError('cancelled');
      return chosen as (typeof ask.keys)[number]['key'];
    },
  };
  const between = typeAheadSink(io);
  // A prompt runs with the sink stopped; while it is held, it starts again once the prompt is done.
  const asking = async <T>(ask: () => Promise<T>): Promise<T> => {
    between.stop();
    try {
      return await ask();
    } finally {
      between.resume();
    }
  };
  return {
    input: (ask) => asking(() => prompts.input(ask)),
    password: (ask) => asking(() => prompts.password(ask)),
    confirm: (ask) => asking(() => prompts.confirm(ask)),
    select: (ask) => asking(() => prompts.select(ask)),
    key: (ask) => asking(() => prompts.key(ask)),
    dropTypeAhead: () => between.hold(),
  };
}

/** A confirmation's answer: y/yes, n/no in any case, empty for the default; anything else is no answer. */
export function yesOrNo(value: string, fallback: boolean): boolean | undefined {
  const answer = value.trim().toLowerCase();
  if (answer === '') return fallback;
  if (answer === 'y' || answer === 'yes') return true;
  if (answer === 'n' || answer === 'no') return false;
  return undefined;
}

/**
 * Esc aborts the prompt reading `input`. The prompt's readline turns the stream's bytes into
 * keypress events, and tells a lone Esc from the start of an arrow key's sequence.
 */
function escapeAborts(input: Readable): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onKeypress = (_text: unknown, key: { name?: string } | undefined) => {
    if (key?.name === 'escape') controller.abort();
  };
  input.on('keypress', onKeypress);
  return { signal: controller.signal, dispose: () => input.off('keypress', onKeypress) };
}

/** How long what the terminal holds is read before a question is drawn: it is there at once. */
const TYPED_AHEAD_MS = 25;

/**
 * What was typed before a question is on screen, read and dropped: a line typed ahead into
 * a command still starting (or still fetching) answers no question it was not there for. In
 * raw mode a line not ended yet is dropped too. A Ctrl-C among it is the SIGINT the terminal
 * would have sent. Nothing happens off a terminal.
 */
async function dropTypedAhead(io: IOStreams): Promise<void> {
  const stdin = io.stdin as Readable & { setRawMode?(raw: boolean): unknown; isRaw?: boolean };
  if (!io.stdinIsTTY || typeof stdin.setRawMode !== 'function') return;
  const wasRaw = stdin.isRaw === true;
  let interrupted = false;
  const drop = (data: Buffer | string) => {
    if (String(data).includes('\x03')) interrupted = true;
  };
  stdin.setRawMode(true);
  stdin.on('data', drop);
  stdin.resume();
  await new Promise((resolve) => setTimeout(resolve, TYPED_AHEAD_MS));
  stdin.off('data', drop);
  stdin.pause();
  stdin.setRawMode(wasRaw);
  if (interrupted) process.kill(process.pid, 'SIGINT');
}

/**
 * Between prompts, while held: the terminal in raw mode (nothing echoed, nothing kept for the
 * next prompt's line) and what arrives read and dropped; a Ctrl-C among it is raised as the
 * SIGINT the terminal would have sent. Nothing happens off a terminal.
 */
function typeAheadSink(io: IOStreams): { hold(): { dispose(): void }; stop(): void; resume(): void } {
  const stdin = io.stdin as Readable & { setRawMode?(raw: boolean): unknown };
  let holds = 0;
  let running: (() => void) | undefined;
  const stop = () => {
    running?.();
    running = undefined;
  };
  const resume = () => {
    if (holds === 0 || running !== undefined || !io.stdinIsTTY || typeof stdin.setRawMode !== 'function') return;
    const drop = (data: Buffer | string) => {
      if (String(data).includes('\x03')) process.kill(process.pid, 'SIGINT');
    };
    stdin.setRawMode(true);
    stdin.on('data', drop);
    stdin.resume();
    running = () => {
      stdin.off('data', drop);
      stdin.pause();
      stdin.setRawMode?.(false);
    };
  };
  return {
    hold() {
      holds += 1;
      resume();
      let disposed = false;
      return {
        dispose() {
          if (disposed) return;
          disposed = true;
          holds -= 1;
          if (holds === 0) stop();
        },
      };
    },
    stop,
    resume,
  };
}
