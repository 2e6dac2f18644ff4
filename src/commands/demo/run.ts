// `svc demo`: the merchant flow on an embedded sandbox, one real command per step. It grows
// with each capability; every step is the command a user would run themselves.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Factory } from '../../factory.js';
import { theme } from '../../io/theme.js';
import { createDemoSession } from './session.js';

export type DemoOptions = Record<string, never>;

export async function run(_opts: DemoOptions, f: Factory): Promise<void> {
  const t = theme(f.io);
  const out = (line = '') => f.io.stdout.write(`${line}\n`);
  const heading = (text: string) => out(`\n${t.cyan.bold(`== ${text}`)}`);

  const home = await mkdtemp(join(tmpdir(), 'svc-demo-'));
  const { startSandbox } = await import('../../sandbox/server.js');
  const sandbox = await startSandbox({ port: 0, autoApprove: true });
  try {
    heading('An embedded sandbox: the whole service, locally');
    out(`listening on ${sandbox.url} (consent requests are approved automatically, as in CI)`);
    out(t.dim(`config and secrets for this demo live in ${home} and in memory, and are removed afterwards`));
    const demo = await createDemoSession(f, sandbox.url, home);

    heading('Settings: flag > environment > profile > built-in');
    await demo.svc(['config', 'list']);

    heading('Where secrets live (never their values)');
    await demo.svc(['auth', 'status']);

    heading('The sandbox is ours to steer: move its clock');
    await demo.svc(['sandbox', 'clock', 'advance', '1h']);

    heading('Done');
    out('Next: `svc sandbox start` in one terminal, then `svc auth login` in another.');
  } finally {
    await sandbox.close();
    await rm(home, { recursive: true, force: true });
  }
}
