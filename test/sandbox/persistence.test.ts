// The kept state of `sandbox start --state` (src/sandbox/persistence.ts), in process: every
// answered request is on disk before its answer, many at once share writes, a restart
// restores it, a left-over temporary file from a crash mid-write is ignored, and a reset
// begins a new state.
import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';

const COMPANY_KEY = 'sk_sandbox_example_retail_7c1e4b9a2f6d4e0b8a3c5d7e9f1a2b3c';
let open: RunningSandbox[] = [];
const dirsMade: string[] = [];

afterEach(async () => {
  await Promise.all(open.map((s) => s.close()));
  open = [];
  await Promise.all(dirsMade.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function kept(dir: string): Promise<RunningSandbox> {
  const sandbox = await startSandbox({ stateDir: dir });
  open.push(sandbox);
  return sandbox;
}

async function subscribe(sandbox: RunningSandbox, n: number): Promise<string> {
  const res = await fetch(`${sandbox.url}/webhook/subscription`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': COMPANY_KEY, 'Idempotency-Key': `k-${n}` },
    body: JSON.stringify({ name: `s${n}`, notificationUrl: `http://127.0.0.1:9/${n}`, events: ['RETURN_REQUESTED'] }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function listed(sandbox: RunningSandbox): Promise<string[]> {
  const res = await fetch(`${sandbox.url}/webhook/subscription`, { headers: { 'X-API-Key': COMPANY_KEY } });
  return ((await res.json()) as { id: string }[]).map((s) => s.id).sort();
}

describe('sandbox --state', () => {
  it('40 requests at once: each answered one is on disk, and a restart restores all of them and the clock', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-persist-'));
    dirsMade.push(dir);
    const first = await kept(dir);
    const ids = await Promise.all(Array.from({ length: 40 }, (_, n) => subscribe(first, n)));
    first.clock.advance(120);
    await fetch(`${first.url}/sandbox/clock`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ advanceSeconds: 60 }) });
    // Without closing the first (as after a crash): a copy of what is on disk now holds
    // everything that was answered.
    const copy = await mkdtemp(join(tmpdir(), 'svc-persist-copy-'));
    dirsMade.push(copy);
    await copyFile(join(dir, 'state.v8'), join(copy, 'state.v8'));
    const second = await kept(copy);
    expect(second.persistence?.restored).toBe(true);
    expect(await listed(second)).toEqual([...ids].sort());
    expect(second.clock.offsetMs()).toBe(180_000);
  });

  it('ignores a temporary file a crash left mid-write; refuses a damaged state', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-persist-'));
    dirsMade.push(dir);
    const first = await kept(dir);
    const id = await subscribe(first, 1);
    await first.close();
    open = [];
    await writeFile(join(dir, '.state.v8.123.abcdef.tmp'), 'half a write');
    const second = await kept(dir);
    expect(await listed(second)).toEqual([id]);
    await second.close();
    open = [];
    await writeFile(join(dir, 'state.v8'), 'not a state');
    await expect(startSandbox({ stateDir: dir })).rejects.toThrow(/damaged|not a sandbox state/);
    expect((await readdir(dir)).includes('state.v8')).toBe(true);
  });

  it('a reset begins a new state (stateSince moves) and is kept', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-persist-'));
    dirsMade.push(dir);
    const first = await kept(dir);
    await subscribe(first, 1);
    const since = first.context.stateSince();
    await new Promise((r) => setTimeout(r, 5));
    await fetch(`${first.url}/sandbox/reset`, { method: 'POST' });
    expect(first.context.stateSince() > since).toBe(true);
    await first.close();
    open = [];
    const second = await kept(dir);
    expect(await listed(second)).toEqual([]);
    expect(second.context.stateSince()).toBe(first.context.stateSince());
  });
});
