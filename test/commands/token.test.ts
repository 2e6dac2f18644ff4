import type { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { run as get } from '../../src/commands/token/get.js';
import { run as validate } from '../../src/commands/token/validate.js';
import type { CommandContext, VerbLoader } from '../../src/commands/context.js';
import { AuthError, ExitCode } from '../../src/errors.js';
import { buildProgram } from '../../src/root.js';
import { CLIENT_SECRET, GRANT, JSON_HEADERS, NOW, errorResponse, rejection, setup, tokenResponse, type SetupOptions } from '../auth/setup.js';

let current: ReturnType<typeof setup> | undefined;
function make(opts: SetupOptions = {}) {
  current = setup({ profiles: { local: { grants: [GRANT] } }, secrets: { 'client-secret': CLIENT_SECRET }, ...opts });
  return current;
}
afterEach(async () => {
  await current?.done();
  current = undefined;
});

const TOKEN = 'tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

describe('svc token get', () => {
  it('prints the bare token and only that on stdout', async () => {
    const { f, t, pool } = make();
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply(() => tokenResponse(TOKEN));
    await get({ force: false }, f);
    expect(t.stdout()).toBe(`${TOKEN}\n`);
    expect(t.stderr()).toBe('');
  });

  it('--json gives access_token, token_type, expires_at, grant_id and scope', async () => {
    const { f, t, pool } = make({ json: true });
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply(() => tokenResponse(TOKEN, 'read_stores'));
    await get({ force: false, scope: 'read_stores' }, f);
    expect(JSON.parse(t.stdout())).toEqual({
      access_token: TOKEN,
      token_type: 'bearer',
      expires_at: new Date(NOW + 900_000).toISOString(),
      grant_id: GRANT.grant_id,
      scope: 'read_stores',
    });
  });

  it('makes no token request for consecutive commands, and one with --force', async () => {
    const { f, t, pool } = make();
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply(() => tokenResponse(TOKEN));
    await get({ force: false }, f);
    await get({ force: false }, f);
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply(() => tokenResponse('tok-forced'));
    await get({ force: true }, f);
    expect(t.stdout()).toBe(`${TOKEN}\n${TOKEN}\ntok-forced\n`);
  });

  it('puts no secret on stderr, even with the --debug trace', async () => {
    const { f, t, pool } = make({ debug: true });
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply(() => tokenResponse(TOKEN));
    await get({ force: false }, f);
    expect(t.stderr()).toContain('POST http://svc.test/oauth2/token');
    expect(t.stderr()).not.toContain(TOKEN);
    expect(t.stderr()).not.toContain(CLIENT_SECRET);
    expect(t.stdout()).toBe(`${TOKEN}\n`);
  });

  it('without any Grant fails with exit 4 and says to log in', async () => {
    // The client ID the setup puts in SVC_CLIENT_ID kept in the profile instead: nothing in the environment.
    const { f } = make({ profiles: { local: { clientId: 'app_profile' } }, env: { SVC_CLIENT_ID: undefined as unknown as string } });
    const error = await rejection(get({ force: false }, f));
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).exitCode).toBe(ExitCode.auth);
    expect((error as AuthError).message).toBe('no Grant: run `svc auth login`');
  });

  it('without any Grant, the client from SVC_CLIENT_ID: names SVC_GRANT_ID as what is missing, exit 4', async () => {
    const { f } = make({ profiles: {} });
    const error = await rejection(get({ force: false }, f));
    expect((error as AuthError).exitCode).toBe(ExitCode.auth);
    expect((error as AuthError).message).toBe('no Grant: SVC_CLIENT_ID is set but SVC_GRANT_ID is not');
  });
});

describe('svc token validate', () => {
  const validation = (token: string, answer: boolean) => ({
    path: '/oauth2/token/validate',
    method: 'GET' as const,
    headers: { authorization: `Bearer ${token}` },
    answer: { statusCode: 200, data: JSON.stringify(answer), responseOptions: { headers: JSON_HEADERS } },
  });

  it('validates the cached token of the default Grant: valid, exit 0', async () => {
    const { f, t, pool } = make();
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply(() => tokenResponse(TOKEN));
    await get({ force: false }, f);
    const v = validation(TOKEN, true);
    pool.intercept(v).reply(() => v.answer);
    await validate({}, f);
    expect(t.stdout()).toBe(`${TOKEN}\nvalid\n`);
  });

  it('reads the token from stdin with -, and fails with exit 4 when it is invalid', async () => {
    const { f, t, pool } = make();
    t.input.end('tok-old\n');
    const v = validation('tok-old', false);
    pool.intercept(v).reply(() => v.answer);
    const error = await rejection(validate({ token: '-' }, f));
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).exitCode).toBe(ExitCode.auth);
    expect(t.stdout()).toBe('invalid\n');
    expect(t.stderr()).not.toContain('tok-old');
  });

  it('drops a cached token the service refuses, so that the next token get asks for a new one', async () => {
    const { f, t, pool } = make();
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply(() => tokenResponse(TOKEN));
    await get({ force: false }, f);
    const v = validation(TOKEN, false);
    pool.intercept(v).reply(() => v.answer);
    const error = await rejection(validate({}, f));
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).message).toBe(`the cached token of Grant ${GRANT.grant_id} is not valid; it is dropped from the cache`);
    pool.intercept({ path: '/oauth2/token', method: 'POST' }).reply(() => tokenResponse('tok-new'));
    await get({ force: false }, f);
    expect(t.stdout()).toBe(`${TOKEN}\ninvalid\ntok-new\n`);
  });

  it('treats a 401 from the service as invalid', async () => {
    const { f, t, pool } = make({ json: true });
    pool.intercept({ path: '/oauth2/token/validate', method: 'GET' }).reply(() => errorResponse(401, 'invalid_token'));
    await expect(validate({ token: 'tok-x' }, f)).rejects.toBeInstanceOf(AuthError);
    expect(JSON.parse(t.stdout())).toEqual({ valid: false });
  });
});

describe('argv → options', () => {
  async function parse(argv: string[]) {
    const calls: unknown[] = [];
    const ctx: CommandContext = {
      async run<O>(_cmd: Command, _load: VerbLoader<O>, opts: O) {
        calls.push(opts);
      },
    };
    await buildProgram(ctx, { writeOut: () => {}, writeErr: () => {} }).parseAsync(argv, { from: 'user' });
    return calls;
  }

  it('token get and validate', async () => {
    expect(await parse(['token', 'get', '--grant', 'g', '--scope', 'read_stores', '--force'])).toEqual([{ grant: 'g', scope: 'read_stores', force: true }]);
    expect(await parse(['token', 'get'])).toEqual([{ grant: undefined, scope: undefined, force: false }]);
    expect(await parse(['token', 'validate', '-'])).toEqual([{ token: '-' }]);
  });

  it('grants list, show and use', async () => {
    expect(await parse(['grants', 'list', '--details'])).toEqual([{ details: true }]);
    expect(await parse(['grants', 'show', 'g-1'])).toEqual([{ grantId: 'g-1' }]);
    expect(await parse(['grants', 'use', 'g-1'])).toEqual([{ grantId: 'g-1' }]);
  });
});
