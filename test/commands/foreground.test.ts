import { describe, expect, it } from 'vitest';
import { parsePort } from '../../src/commands/foreground.js';
import { processStopSignal } from '../../src/io/stop-signal.js';
import { UsageError } from '../../src/errors.js';

describe('processStopSignal', () => {
  it('stays a listener while the signal is dispatched, so a signal-exit handler does not re-raise it', async () => {
    const before = process.listenerCount('SIGTERM');
    const stop = processStopSignal();
    // signal-exit (loaded with ora or @inquirer) kills the process again when it finds itself
    // the only listener besides those that were there before.
    let reRaised: boolean | undefined;
    const signalExit = () => {
      reRaised = process.listenerCount('SIGTERM') === before + 1;
    };
    process.on('SIGTERM', signalExit);
    try {
      process.emit('SIGTERM', 'SIGTERM');
      expect(await stop.stopped).toBe('SIGTERM');
      expect(reRaised).toBe(false);
      // Afterwards it is gone: a second signal gets the default.
      await new Promise((resolve) => setImmediate(resolve));
      expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    } finally {
      process.off('SIGTERM', signalExit);
      stop.dispose();
    }
  });
});

describe('parsePort', () => {
  it('takes 0 to 65535 only', () => {
    expect(parsePort('0')).toBe(0);
    expect(parsePort('8790')).toBe(8790);
    for (const bad of ['65536', '-1', '80a', '']) expect(() => parsePort(bad)).toThrow(UsageError);
  });
});
