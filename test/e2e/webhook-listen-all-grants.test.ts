// webhook listen --subscribe --all-grants / --grants FILE: the refusals, checked before any
// network call. The end-to-end run on a `sandbox start --companies N` sandbox is still to come.
import { describe, expect, it } from 'vitest';
import { runSvc } from './helpers.js';

describe('webhook listen --all-grants refusals', () => {
  it('--all-grants without --subscribe is a usage error naming --subscribe', async () => {
    const r = await runSvc(['webhook', 'listen', '--all-grants', '--port', '0']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--all-grants and --grants go with --subscribe');
  });

  it('--all-grants with --show-secret is a usage error pointing at --grant', async () => {
    const r = await runSvc(['webhook', 'listen', '--subscribe', '--all-grants', '--show-secret', '--port', '0']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--show-secret prints one secret');
    expect(r.stderr).toContain('--grant');
  });
});
