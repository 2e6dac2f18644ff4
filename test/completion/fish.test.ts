// The committed fish script, sourced into a real fish, offers the tree with descriptions.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fishCompletion } from '../../src/completion/generate.js';
import { sampleTree } from './sample-tree.js';
import { completionsDir, fishComplete, requireTools, scriptDir, suiteTitle } from './shells.js';

const script = join(completionsDir, 'svc.fish');
const missing = requireTools(['fish']);
const words = (lines: string[]) => lines.map((l) => l.split('\t', 1)[0]).sort();

describe.skipIf(missing !== undefined)(suiteTitle('fish completion', missing), () => {
  it('completes a command from its prefix, with its description', async () => {
    expect(await fishComplete(script, 'svc cre')).toEqual(['credit-note\twork the return queue and issue credit notes']);
  });

  it('offers the subcommands of credit-note', async () => {
    expect(words(await fishComplete(script, 'svc credit-note '))).toEqual(
      ['accept', 'complete', 'issue', 'list', 'poll', 'reject', 'show', 'status', 'template', 'triage'],
    );
  });

  it("completes a verb's flags", async () => {
    expect(await fishComplete(script, 'svc credit-note poll --w')).toEqual(['--watch\ton a terminal, the queue screen; piped, the changes']);
  });

  it('offers the choices of an argument', async () => {
    expect(words(await fishComplete(script, 'svc completion '))).toEqual(['bash', 'fish', 'install', 'zsh']);
  });

  it('tells a subcommand from the same word elsewhere in the tree or a flag value', async () => {
    expect(words(await fishComplete(script, 'svc webhook '))).toEqual(['events', 'list', 'listen', 'replay', 'subscribe', 'unsubscribe', 'verify']);
    expect(words(await fishComplete(script, 'svc --profile config sandbox trigger '))).toEqual(['cancel', 'outage', 'return-request']);
  });
});

describe.skipIf(missing !== undefined)(suiteTitle('fish completion of the sample tree', missing), () => {
  let dir: { file: string; remove(): Promise<void> };
  beforeAll(async () => {
    dir = await scriptDir('svc.fish', fishCompletion(sampleTree()));
  });
  afterAll(() => dir.remove());

  it('offers the choices of a flag', async () => {
    expect(words(await fishComplete(dir.file, 'svc deploy --mode '))).toEqual(['fast', 'safe']);
    expect(words(await fishComplete(dir.file, 'svc deploy --mode=s'))).toEqual(['--mode=safe']);
  });

  it('offers no hidden command and not the implicit help command', async () => {
    expect(words(await fishComplete(dir.file, 'svc '))).toEqual(['deploy', 'group']);
    expect(words(await fishComplete(dir.file, 'svc group '))).toEqual(['leaf']);
    expect(words(await fishComplete(dir.file, 'svc deploy --'))).not.toContain('--internal-trace');
  });
});
