// A prompt answered by one key, without Enter (`a accept · r reject · q quit`): what a
// person working through a list presses many times. Built on @inquirer/core like the other
// prompts, so it draws and cleans up the same way and Ctrl-C ends it the same way. Esc
// answers `undefined`: the caller decides what backing out means.
import { createPrompt, useKeypress, usePrefix, useState, type KeypressEvent } from '@inquirer/core';

export interface KeyPromptConfig {
  message: string;
  /** One lower-case letter or digit each (its upper case works too), and what it does. */
  keys: readonly { key: string; name: string }[];
}

/** Answers the key pressed, or undefined for Esc. */
export const keyPrompt = createPrompt<string | undefined, KeyPromptConfig>((config, done) => {
  const [answer, setAnswer] = useState<string | undefined>(undefined);
  const prefix = usePrefix({ status: answer === undefined ? 'idle' : 'done' });
  useKeypress((key: KeypressEvent & { sequence?: string }, rl) => {
    // Keys that mean nothing here would pile up in the line readline keeps.
    rl.clearLine(0);
    if (key.name === 'escape') {
      setAnswer('(cancelled)');
      done(undefined);
      return;
    }
    const typed = (key.sequence ?? key.name).toLowerCase();
    const chosen = config.keys.find((k) => k.key === typed);
    if (!chosen) return;
    setAnswer(chosen.name);
    done(chosen.key);
  });
  if (answer !== undefined) return `${prefix} ${config.message} ${answer}`;
  return `${prefix} ${config.message} ${config.keys.map((k) => `${k.key} ${k.name}`).join(' · ')}`;
});
