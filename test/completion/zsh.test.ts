// The committed zsh script, found by compinit in $fpath, offers the tree with descriptions.
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zshCompletion } from '../../src/completion/generate.js';
import { sampleTree } from './sample-tree.js';
import { completionsDir, requireTools, scriptDir, suiteTitle, zshComplete } from './shells.js';

const missing = requireTools(['zsh']);
const words = (lines: string[]) => lines.map((l) => l.split(' -- ', 1)[0]).sort();

describe.skipIf(missing !== undefined)(suiteTitle('zsh completion', missing), () => {
  it('parses', async () => {
    await execa('zsh', ['-n', join(completionsDir, '_svc')]);
  });

  it('completes a command from its prefix, with its description', async () => {
    expect(await zshComplete(completionsDir, 'svc cre')).toEqual(['credit-note -- work the return queue and issue credit notes']);
  });

  it('offers the subcommands of credit-note', async () => {
    expect(words(await zshComplete(completionsDir, 'svc credit-note '))).toEqual(
      ['accept', 'complete', 'issue', 'list', 'poll', 'reject', 'show', 'status', 'template', 'triage'],
    );
  });

  it("completes a verb's flags", async () => {
    expect(await zshComplete(completionsDir, 'svc credit-note poll --w')).toEqual(['--watch -- on a terminal, the queue screen; piped, the changes']);
  });

  it('offers the choices of an argument', async () => {
    expect(words(await zshComplete(completionsDir, 'svc completion '))).toEqual(['bash', 'fish', 'install', 'zsh']);
  });

  it('also works sourced (`source <(svc completion zsh)`) instead of autoloaded', async () => {
    expect(await zshComplete(join(completionsDir, '_svc'), 'svc credit-note po')).toEqual([
      'poll -- fetch and decrypt the queue of customer return requests',
    ]);
  });

  it('walks nested commands past the value of a global flag', async () => {
    expect(words(await zshComplete(completionsDir, 'svc --profile config sandbox trigger '))).toEqual(['cancel', 'outage', 'return-request']);
  });
});

describe.skipIf(missing !== undefined)(suiteTitle('zsh completion of the sample tree', missing), () => {
  let dir: { dir: string; remove(): Promise<void> };
  beforeAll(async () => {
    dir = await scriptDir('_svc', zshCompletion(sampleTree()));
  });
  afterAll(() => dir.remove());

  it('offers the choices of a flag, in the next word or after =', async () => {
    expect(words(await zshComplete(dir.dir, 'svc deploy --mode '))).toEqual(['fast', 'safe']);
    // zsh completes the part after the = (its IPREFIX).
    expect(words(await zshComplete(dir.dir, 'svc deploy --mode=s'))).toEqual(['safe']);
  });

  it('shows descriptions with brackets and quotes as written', async () => {
    const offered = await zshComplete(dir.dir, 'svc deploy --');
    expect(offered).toContain("--mode -- how it's shipped");
    expect(offered).toContain('--tag -- a tag [repeatable]');
    expect(offered).not.toContain('--internal-trace');
  });

  it('offers no hidden command and not the implicit help command', async () => {
    expect(words(await zshComplete(dir.dir, 'svc '))).toEqual(['deploy', 'group']);
    expect(words(await zshComplete(dir.dir, 'svc group '))).toEqual(['leaf']);
  });
});
