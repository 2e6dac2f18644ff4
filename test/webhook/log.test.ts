// The listener's log: under --log-format json a note written on stderr becomes one object whose
// level says what its "warning: " / "note: " / "error: " prefix said, so msg goes without it;
// text mode prints the lines as they are.
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.js';
import { note } from '../../src/io/streams.js';
import { testStreams } from '../../src/io/test-streams.js';
import { createListenLog } from '../../src/webhook/log.js';

const NOW = Date.UTC(2026, 0, 15, 12);
const LINES = [
  'warning: this profile has no private key, so deliveries are journalled but cannot be decrypted; create one with `svc keys generate --upload`',
  'note: the secret store cannot be read',
  'note: listening for this company only',
  'error: the journal is damaged',
  'subscribed whsub_1 to RETURN_REQUESTED',
];

describe('--log-format json: notes written on stderr', () => {
  it('keep their level, and their msg loses the "warning: ", "note: " or "error: " the level already says', () => {
    const t = testStreams();
    const log = createListenLog(t.io, 'json', fixedClock(NOW));
    for (const line of LINES) note(log.io, line);
    const objects = t.stderr().trim().split('\n').map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(objects.map(({ level, msg }) => [level, msg])).toEqual([
      ['warn', 'this profile has no private key, so deliveries are journalled but cannot be decrypted; create one with `svc keys generate --upload`'],
      ['warn', 'the secret store cannot be read'],
      ['info', 'listening for this company only'],
      ['error', 'the journal is damaged'],
      ['info', 'subscribed whsub_1 to RETURN_REQUESTED'],
    ]);
  });
});

describe('--log-format text', () => {
  it('prints the lines unchanged, prefixes and all', () => {
    const t = testStreams();
    const log = createListenLog(t.io, 'text', fixedClock(NOW));
    for (const line of LINES) note(log.io, line);
    expect(t.stderr()).toBe(LINES.map((line) => `${line}\n`).join(''));
  });
});
