// Two machines of one team and the one key the service encrypts for. Machine A generated and
// registered it; machine B is fresh (a HOME, config and state of its own, logged in). B's
// poll cannot read the request, and what it prints must not lead B to register a key of its
// own in silence, which left A unable to read new requests. What the hint says instead, run
// as printed (export on A, import on B), gives both the key: both read the next request. The
// private key passes only through a file and a pipe: never argv, stdout or stderr.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeSvcHome, runSvc, type SvcHome, type SvcResult } from './helpers.js';
import { milkRequests, useMerchant, type PolledItem } from './merchant.js';
import { loginAutoApproved } from './oauth-fixture.js';

const { merchant, dirs } = useMerchant();
const TIMEOUT = 180_000;

let b: SvcHome;
/** The folder both machines run in: what A writes there, B reads (the file carried over). */
let carried: string;
/** Every svc run of this file, A's and B's, for the check that no key material was printed. */
const runs: { args: readonly string[]; result: SvcResult }[] = [];

async function on(home: SvcHome, args: readonly string[], input?: string): Promise<SvcResult> {
  const result = await runSvc(args, { home, env: merchant().env, cwd: carried, timeout: 90_000, ...(input === undefined ? {} : { input }) });
  runs.push({ args, result });
  return result;
}
const onA = (args: readonly string[]) => on(merchant().home, args);
const onB = (args: readonly string[]) => on(b, args);

async function registeredKeyId(): Promise<string> {
  const r = await onA(['keys', 'show-remote', '--json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { keyId: string }).keyId;
}

/** Whether `poll --json` on a machine reads the request. */
async function reads(home: SvcHome, requestId: string): Promise<boolean> {
  const r = await on(home, ['credit-note', 'poll', '--json']);
  expect(r.exitCode, r.stderr).toBe(0);
  const item = (JSON.parse(r.stdout) as PolledItem[]).find((i) => i.requestId === requestId);
  expect(item, `request ${requestId} in the poll`).toBeDefined();
  return item?.returnRequest !== undefined;
}

/** The commands a hint names, as printed between backticks. */
function commandsOf(text: string): string[][] {
  return [...text.matchAll(/`(svc [^`]+)`/g)].map((m) => m[1]!.split(' ').slice(1));
}

beforeAll(async () => {
  b = await makeSvcHome(dirs);
  carried = await dirs.make('svc-carried-');
  const { result } = await loginAutoApproved(b, merchant().sandbox.url, merchant().fixture);
  expect(result.exitCode, result.stderr).toBe(0);
}, TIMEOUT);

describe('a fresh machine of the team', () => {
  let registered: string;
  let first: string | undefined;
  /** The line of B's first poll that says what to do. */
  let warning: string;

  it("B's poll says the registered key is held elsewhere and how to copy it; registering its own is refused without --yes", async () => {
    registered = await registeredKeyId();
    [first] = await milkRequests(merchant(), 1);
    expect(await reads(merchant().home, first!)).toBe(true);

    const poll = await onB(['credit-note', 'poll']);
    expect(poll.exitCode, poll.stderr).toBe(0);
    warning = poll.stderr.split('\n').find((line) => line.includes('no private keys')) ?? '';
    expect(warning).toContain(`the service encrypts for key ${registered}`);
    expect(warning).toContain('svc keys export --file key.pem');
    expect(warning).toContain('svc keys import --file key.pem');

    // What the hint used to send B to: no terminal, no --yes, so nothing is replaced.
    const generate = await onB(['keys', 'generate', '--upload']);
    expect(generate.exitCode, generate.stderr).toBe(2);
    expect(generate.stderr).toContain(`key ${registered} (uploaded `);
    expect(generate.stderr).toContain('needs --yes');
    expect(generate.stderr).toContain('svc keys import');
    expect(await registeredKeyId()).toBe(registered);
    // Nor does `keys rotate` or `keys upload` of a key B made (held only here).
    expect((await onB(['keys', 'generate'])).exitCode).toBe(0);
    for (const args of [['keys', 'upload'], ['keys', 'rotate']]) {
      const r = await onB(args);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain('--yes');
    }
    expect(await registeredKeyId()).toBe(registered);
    expect(await reads(merchant().home, first!)).toBe(true);
  }, TIMEOUT);

  it("following the hint as printed (export on A, import on B) lets both machines read B's new requests", async () => {
    const [exportArgs, importArgs] = commandsOf(warning);
    // B holds a key of its own now (made above); show-remote names the same way.
    const remote = await onB(['keys', 'show-remote']);
    expect(remote.stderr).toContain('this machine does not hold the registered key');
    expect(commandsOf(remote.stderr).slice(0, 2)).toEqual([exportArgs, importArgs]);
    expect(exportArgs).toEqual(['keys', 'export', '--file', 'key.pem']);
    expect(importArgs).toEqual(['keys', 'import', '--file', 'key.pem']);

    const exported = await onA(exportArgs!);
    expect(exported.exitCode, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(registered);
    const file = join(carried, 'key.pem');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    // Never over a file, never to a terminal-less stdout unless asked.
    expect((await onA(exportArgs!)).exitCode).toBe(2);
    expect((await onA(['keys', 'export'])).exitCode).toBe(2);

    const imported = await onB(importArgs!);
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(registered);
    // It is the registered key, and the import says so, read from the service (A uploaded it).
    const shown = JSON.parse((await onA(['keys', 'show-remote', '--json'])).stdout) as { uploadedAt: string };
    expect(imported.stdout).toMatch(/^registered +yes \(uploaded .+\)$/m);
    expect(imported.stdout).not.toContain('not yet');
    // The same key again changes nothing, and says the same.
    const again = await onB([...importArgs!, '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain('nothing changed');
    expect(JSON.parse(again.stdout)).toMatchObject({ keyId: registered, uploadedAt: shown.uploadedAt, registered: { matches: true, keyId: registered, uploadedAt: shown.uploadedAt } });
    // B's key list has the upload time the service gave it.
    const listed = JSON.parse((await onB(['keys', 'list', '--json'])).stdout) as { keyId: string; uploadedAt?: string }[];
    expect(listed.find((k) => k.keyId === registered)?.uploadedAt).toBe(shown.uploadedAt);

    // B re-registering the same key (a user's "upload" for good measure) is no replacement.
    const upload = await onB(['keys', 'upload']);
    expect(upload.exitCode, upload.stderr).toBe(0);
    expect(await registeredKeyId()).toBe(registered);

    const [second] = await milkRequests(merchant(), 1);
    expect(await reads(merchant().home, second!)).toBe(true);
    expect(await reads(b, second!)).toBe(true);
    expect(await reads(b, first!)).toBe(true);

    const pem = await readFile(file, 'utf8');
    const body = pem.split('\n')[5]!;
    expect(body.length).toBeGreaterThan(40);
    for (const { args, result } of runs) {
      for (const text of [args.join(' '), result.stdout, result.stderr]) {
        expect(text).not.toContain('PRIVATE KEY');
        expect(text).not.toContain(body);
      }
    }
  }, TIMEOUT);

  it('a piped export (--file -) imports from standard input; a rotation of a key held here needs no --yes', async () => {
    const piped = await onA(['keys', 'export', '--file', '-']);
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const c = await makeSvcHome(dirs);
    const imported = await runSvc(['keys', 'import', '--file', '-'], { home: c, input: piped.stdout });
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(registered);
    // C has not logged in, so the service could not be asked: the import says it does not know.
    expect(imported.stdout).toMatch(/^registered +unknown: /m);
    expect(imported.stdout).not.toContain('not yet');
    expect(imported.stderr).toContain('svc keys show-remote');

    const rotate = await onA(['keys', 'rotate']);
    expect(rotate.exitCode, rotate.stderr).toBe(0);
    const rotated = await registeredKeyId();
    expect(rotated).not.toBe(registered);

    // The older key, imported where the service can be asked, is not the registered one any more.
    const older = await on(b, ['keys', 'import', '--file', '-'], piped.stdout);
    expect(older.exitCode, older.stderr).toBe(0);
    expect(older.stdout).toMatch(new RegExp(`^registered +no: the service encrypts for key ${rotated} \\(uploaded .+\\)$`, 'm'));
    expect(older.stderr).toContain('svc keys import --file key.pem');
    const olderJson = await on(b, ['keys', 'import', '--file', '-', '--json'], piped.stdout);
    expect(JSON.parse(olderJson.stdout)).toMatchObject({ keyId: registered, registered: { matches: false, keyId: rotated } });
  }, TIMEOUT);
});
