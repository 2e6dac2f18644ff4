// Completion of values in real shells (bash, zsh, fish): fixed lists the commands accept
// (statuses, refund preferences, config keys) and live values read from this machine by
// `svc __complete` (profiles from config, request IDs from the last poll, event IDs from the
// journal) — through the committed scripts, with the built `svc` on PATH.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSvcHome, runSvc, svcBin, tempDirs } from '../e2e/helpers.js';
import { bashComplete, completionsDir, fishComplete, requireTools, zshComplete } from './shells.js';

const dirs = tempDirs();
let env: Record<string, string>;
const REQUEST_IDS = ['0b7e6c1a-1111-4aaa-8bbb-000000000001', '0b7e6c1a-2222-4aaa-8bbb-000000000002'];

beforeAll(async () => {
  const home = await makeSvcHome(dirs);
  const bin = await dirs.make('svc-complete-bin-');
  await writeFile(join(bin, 'svc'), `#!/bin/sh\nexec node ${svcBin} "$@"\n`);
  await chmod(join(bin, 'svc'), 0o755);
  env = { PATH: `${bin}:${process.env.PATH ?? ''}`, SVC_CONFIG_DIR: home.configDir, SVC_STATE_DIR: home.stateDir, SVC_SECRET_STORE: 'file' };
  const set = await runSvc(['config', 'set', 'base-url', 'https://api.example.com', '--profile', 'production'], { home });
  expect(set.exitCode, set.stderr).toBe(0);
  // What the last `credit-note poll` of the default profile left for completion.
  await mkdir(join(home.stateDir, 'local', 'completion'), { recursive: true });
  await writeFile(join(home.stateDir, 'local', 'completion', 'request-ids'), `${REQUEST_IDS.join('\n')}\n`);
  await mkdir(join(home.stateDir, 'local', 'webhooks'), { recursive: true });
  await writeFile(join(home.stateDir, 'local', 'webhooks', 'journal.ndjson'), `${JSON.stringify({ type: 'delivery', id: 'a1b2c3d4e5f6a7b8c9d0', receivedAt: '2026-11-24T10:00:00.000Z', event: 'RETURN_REQUESTED', headers: {}, body: 'e30=' })}\n`);
});
afterAll(() => dirs.cleanup());

describe('svc __complete', () => {
  it('answers fixed lists and live values, one per line, nothing for a free value', async () => {
    const ask = async (path: string, slot: string) => (await runSvc(['__complete', '--', path, slot], { env })).stdout.trim().split('\n').filter(Boolean);
    expect(await ask('credit-note poll', '--status')).toContain('PARTIALLY_ACCEPTED');
    expect(await ask('', '--profile')).toEqual(['local', 'production', 'sandbox']);
    expect(await ask('credit-note show', 'request-id')).toEqual(REQUEST_IDS);
    expect(await ask('webhook replay', 'event-id')).toEqual(['a1b2c3d4e5f6']);
    expect(await ask('receipt send', '--store')).toEqual([]);
  });
});

describe('in bash', () => {
  const missing = requireTools(['bash']);
  const complete = (...words: string[]) => bashComplete(join(completionsDir, 'svc.bash'), words, false, env);
  it.skipIf(missing !== undefined)('completes flag values and arguments, fixed and live', async () => {
    expect(await complete('svc', 'credit-note', 'poll', '--status', 'PA')).toEqual(['PARTIALLY_ACCEPTED']);
    expect(await complete('svc', 'credit-note', 'poll', '--status', 'PENDING,PA')).toEqual(['PENDING,PARTIALLY_ACCEPTED']);
    expect(await complete('svc', 'sandbox', 'trigger', 'return-request', 'ID', '--refund', '')).toEqual(['ORIGINAL_PAYMENT_METHOD', 'BANK_TRANSFER', 'STORE_CREDIT']);
    expect(await complete('svc', 'config', 'get', 'cl')).toEqual(['client-id']);
    expect(await complete('svc', '--profile', 'pro')).toEqual(['production']);
    expect(await complete('svc', 'credit-note', 'show', '0b7e6c1a-2')).toEqual([REQUEST_IDS[1]]);
    expect(await complete('svc', 'credit-note', 'status', 'ID', '')).toEqual(['ACCEPTED', 'PARTIALLY_ACCEPTED', 'REJECTED', 'COMPLETED']);
  });
});

describe('in zsh', () => {
  const missing = requireTools(['zsh']);
  // The capture records each compadd call; _sequence (comma lists) may add a match twice, which zsh's sorted group shows once.
  const words = (lines: string[]) => [...new Set(lines.map((l) => l.split(' -- ', 1)[0]))].sort();
  it.skipIf(missing !== undefined)('completes flag values and arguments, fixed and live', async () => {
    expect(words(await zshComplete(completionsDir, 'svc credit-note poll --status PA', env))).toEqual(['PARTIALLY_ACCEPTED']);
    expect(words(await zshComplete(completionsDir, 'svc credit-note poll --status PENDING,PA', env))).toEqual(['PARTIALLY_ACCEPTED']);
    expect(words(await zshComplete(completionsDir, 'svc credit-note show 0b7e', env))).toEqual([...REQUEST_IDS].sort());
    expect(words(await zshComplete(completionsDir, 'svc --profile pro', env))).toEqual(['production']);
  });
});

describe('in fish', () => {
  const missing = requireTools(['fish']);
  const words = (lines: string[]) => lines.map((l) => l.split('\t', 1)[0]).sort();
  it.skipIf(missing !== undefined)('completes flag values and arguments, fixed and live', async () => {
    expect(words(await fishComplete(join(completionsDir, 'svc.fish'), 'svc credit-note poll --status PA', env))).toEqual(['PARTIALLY_ACCEPTED']);
    expect(words(await fishComplete(join(completionsDir, 'svc.fish'), 'svc credit-note poll --status PENDING,PA', env))).toEqual(['PENDING,PARTIALLY_ACCEPTED']);
    // A value comes without the flag's description beside it.
    expect(await fishComplete(join(completionsDir, 'svc.fish'), 'svc credit-note poll --status PA', env)).toEqual(['PARTIALLY_ACCEPTED']);
    expect(words(await fishComplete(join(completionsDir, 'svc.fish'), 'svc credit-note show 0b7e', env))).toEqual([...REQUEST_IDS].sort());
    expect(words(await fishComplete(join(completionsDir, 'svc.fish'), 'svc --profile pro', env))).toEqual(['production']);
  });
});

describe('--grant of a profile with many companies, in bash', () => {
  const missing = requireTools(['bash']);
  it.skipIf(missing !== undefined)('offers tax IDs (which --grant takes), not bare Grant UUIDs; grants show still offers the IDs', async () => {
    const home = await makeSvcHome(dirs);
    const grants = Array.from({ length: 3 }, (_, i) => ({
      grant_id: `9a000000-0000-4000-8000-00000000000${i}`, grant_version: 1, issuer_company_id: `c0000000-0000-4000-a000-00000000000${i}`,
      company_legal_name: `Platform Shop 0000${i} GmbH`, tax_id: `EU90000000${i}`, scopes: ['write_receipts'], store_ids: [], store_access_mode: 'ALL_STORES', saved_at: '2026-11-24T10:00:00.000Z',
    }));
    await mkdir(home.configDir, { recursive: true });
    await writeFile(join(home.configDir, 'config.json'), JSON.stringify({ profiles: { local: { grants, grant: grants[0]!.grant_id } } }));
    const withGrants = { ...env, SVC_CONFIG_DIR: home.configDir, SVC_STATE_DIR: home.stateDir };
    const complete = (...words: string[]) => bashComplete(join(completionsDir, 'svc.bash'), words, false, withGrants);
    expect(await complete('svc', 'credit-note', 'poll', '--grant', '')).toEqual(['EU900000000', 'EU900000001', 'EU900000002']);
    expect(await complete('svc', 'credit-note', 'poll', '--grant', 'EU900000001')).toEqual(['EU900000001']);
    expect(await complete('svc', 'grants', 'show', '')).toEqual(grants.map((g) => g.grant_id));
    // zsh and fish read the company beside each value.
    expect((await runSvc(['__complete', '--', 'credit-note poll', '--grant'], { env: withGrants })).stdout).toContain('EU900000001\tPlatform Shop 00001 GmbH');
  });
});
