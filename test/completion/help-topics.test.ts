// `svc help <Tab>` offers the topics and the commands, in bash, zsh and fish.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashComplete, completionsDir, fishComplete, requireTools, zshComplete } from './shells.js';

describe('svc help <Tab>', () => {
  it('bash offers environment, exit-codes and the nouns', async (ctx) => {
    if (requireTools(['bash'])) return ctx.skip();
    const offered = await bashComplete(join(completionsDir, 'svc.bash'), ['svc', 'help', '']);
    expect(offered).toEqual(expect.arrayContaining(['environment', 'exit-codes', 'receipt', 'credit-note']));
  });
  it('zsh offers environment, exit-codes and the nouns', async (ctx) => {
    if (requireTools(['zsh'])) return ctx.skip();
    const offered = (await zshComplete(join(completionsDir, '_svc'), 'svc help ')).map((l) => l.split(' ')[0]);
    expect(offered).toEqual(expect.arrayContaining(['environment', 'exit-codes', 'receipt', 'credit-note']));
  }, 30_000);
  it('fish offers environment, exit-codes and the nouns', async (ctx) => {
    if (requireTools(['fish'])) return ctx.skip();
    const offered = (await fishComplete(join(completionsDir, 'svc.fish'), 'svc help ')).map((l) => l.split('\t')[0]);
    expect(offered).toEqual(expect.arrayContaining(['environment', 'exit-codes', 'receipt', 'credit-note']));
  });
});
