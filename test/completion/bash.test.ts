// The committed bash script, loaded into a real bash, offers what the tree defines.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashComplete, completionsDir, requireBashCompletion, requireTools, scriptDir, suiteTitle } from './shells.js';

const script = join(completionsDir, 'svc.bash');
const CREDIT_NOTE_VERBS = ['poll', 'show', 'accept', 'reject', 'complete', 'status', 'issue', 'triage', 'list', 'template'];
const sorted = (words: string[]) => [...words].sort();

const missingBash = requireTools(['bash']);
// Loading bash-completion first must change nothing; CI installs it to prove that.
const missingPackage = missingBash ?? requireBashCompletion();

describe.skipIf(missingBash !== undefined)(suiteTitle('bash completion', missingBash), () => {
  it('completes a command from its prefix: svc cre → credit-note', async () => {
    expect(await bashComplete(script, ['svc', 'cre'])).toEqual(['credit-note']);
  });

  it('offers the subcommands of credit-note and nothing from other nouns', async () => {
    const offered = await bashComplete(script, ['svc', 'credit-note', '']);
    expect(sorted(offered)).toEqual(sorted(CREDIT_NOTE_VERBS));
    expect(offered).not.toContain('login');
  });

  it("completes a verb's flags: svc credit-note poll --w → --watch", async () => {
    expect(await bashComplete(script, ['svc', 'credit-note', 'poll', '--w'])).toEqual(['--watch']);
  });

  it('offers the flags of a verb and the global flags', async () => {
    const offered = await bashComplete(script, ['svc', 'credit-note', 'poll', '--']);
    expect(offered).toEqual(expect.arrayContaining(['--status', '--watch', '--interval', '--no-decrypt', '--json', '--profile', '--help']));
    expect(offered).not.toContain('--partial');
  });

  it('offers the choices of an argument: svc completion → bash fish install zsh', async () => {
    expect(sorted(await bashComplete(script, ['svc', 'completion', '']))).toEqual(['bash', 'fish', 'install', 'zsh']);
  });

  it("completes svc api's method and the interface's paths: svc api GET /credit-note/r → the status path", async () => {
    expect(await bashComplete(script, ['svc', 'api', 'PA'])).toEqual(['PATCH']);
    expect(await bashComplete(script, ['svc', 'api', 'PATCH', '/credit-note/r'])).toEqual(['/credit-note/requests/{requestId}/status']);
  });

  it('walks nested commands', async () => {
    expect(sorted(await bashComplete(script, ['svc', 'sandbox', 'trigger', '']))).toEqual(['cancel', 'outage', 'return-request']);
    expect(await bashComplete(script, ['svc', 'sandbox', 'clock', ''])).toEqual(['advance', 'reset']);
    expect(await bashComplete(script, ['svc', 'sandbox', 'trigger', 'return-request', 'R1', '--ref'])).toEqual(['--refund']);
  });

  it('does not take the value of a flag for a command', async () => {
    expect(await bashComplete(script, ['svc', '--profile', 'production', 'cre'])).toEqual(['credit-note']);
    // `config` given as the profile's name is a value, not the config command.
    expect(await bashComplete(script, ['svc', '--profile', 'config', 'cre'])).toEqual(['credit-note']);
  });

  it('offers nothing where an identifier is expected', async () => {
    expect(await bashComplete(script, ['svc', 'credit-note', 'show', ''])).toEqual([]);
  });

  describe('file names for a <path> value', () => {
    let dir: { dir: string; remove(): Promise<void> };
    beforeAll(async () => {
      dir = await scriptDir('return.json', '{}');
      await mkdir(join(dir.dir, 'receipts'));
      await writeFile(join(dir.dir, 'receipts', 'r1.json'), '{}');
    });
    afterAll(() => dir.remove());

    it('svc credit-note template --file DIR/ lists the files there', async () => {
      const offered = await bashComplete(script, ['svc', 'credit-note', 'template', '--file', `${dir.dir}/`]);
      expect(sorted(offered)).toEqual([join(dir.dir, 'receipts'), join(dir.dir, 'return.json')]);
    });
  });

  describe.skipIf(missingPackage !== undefined)(suiteTitle('with the bash-completion package loaded', missingPackage), () => {
    it('gives the same answers', async () => {
      expect(await bashComplete(script, ['svc', 'cre'], true)).toEqual(['credit-note']);
      expect(sorted(await bashComplete(script, ['svc', 'credit-note', ''], true))).toEqual(sorted(CREDIT_NOTE_VERBS));
      expect(await bashComplete(script, ['svc', 'credit-note', 'poll', '--w'], true)).toEqual(['--watch']);
      expect(sorted(await bashComplete(script, ['svc', 'completion', ''], true))).toEqual(['bash', 'fish', 'install', 'zsh']);
    });
  });
});
