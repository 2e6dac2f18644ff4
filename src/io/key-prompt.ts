// A prompt answered by one key, without Enter (`a accept · r reject · q quit`): what a
// person working through a list presses many times. Built on @inquirer/core like the other
// prompts, so it draws and cleans up the same way and Ctrl-C ends it the same way. Esc
// answers `undefined`: the caller decides what backing out means.
import { createPrompt, useKeypress, usePrefix, useRef, useState, type KeypressEvent } from '@inquirer/core';

export interface KeyPromptConfig {
  message: string;
  /** One lower-case letter or digit each (its upper case works too), and what it does. */
  keys: readonly { key: string; name: string }[];
}

/**
 * Answers the key pressed, or undefined for Esc. The first key that means something is the
 * answer, and the line left on screen names that key: keys typed with it (`a` and `r` in one
 * go arrive together) are dropped, never shown as the answer (it once said "reject" over an
 * accept) nor passed on to the next prompt.
 */
export const keyPrompt = createPrompt<string | undefined, KeyPromptConfig>((config, done) => {
  const [answer, setAnswer] = useState<string | undefined>(undefined);
  // Set at once, where the state is only seen at the next render: the keys of one chunk come before it.
  const answered = useRef(false);
  const prefix = usePrefix({ status: answer === undefined ? 'idle' : 'done' });
  useKeypress((key: KeypressEvent & { sequence?: string }, rl) => {
    // Keys that mean nothing here would pile up in the line readline keeps.
    rl.clearLine(0);
    if (answered.current) return;
    if (key.name === 'escape') {
      answered.current = true;
      setAnswer('(cancelled)');
      done(undefined);
      return;
    }
    const typed = (key.sequence ?? key.name).toLowerCase();
    const chosen = config.keys.find((k) => k.key === typed);
    if (!chosen) return;
    answered.current = true;
    setAnswer(chosen.name);
    done(chosen.key);
  });
  if (answer !== undefined) return `${prefix} ${config.message} ${answer}`;
  return `${prefix} ${config.message} ${config.keys.map((k) => `${k.key} ${k.name}`).join(' · ')}`;
});
