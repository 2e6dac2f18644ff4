// A Factory for auth tests: an ApiClient on a strict MockAgent, in-memory config and
// secrets, a fixed clock, and a temp state dir for the lock files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { createApiClient } from '../../src/api/client.js';
import { fixedClock } from '../../src/clock.js';
import { memoryConfigStore, type ProfileConfig } from '../../src/config/store.js';
import { createFactory } from '../../src/factory.js';
import { testStreams } from '../../src/io/test-streams.js';
import { memorySecretStore, type SecretStore } from '../../src/secrets/store.js';

export const BASE = 'http://svc.test';
export const JSON_HEADERS = { 'content-type': 'application/json' };
export const NOW = Date.UTC(2025, 0, 1);
export const CLIENT_ID = 'app_test';
export const CLIENT_SECRET = 'cs_test_5f3c9d2e8a714b06';

export const GRANT = {
  grant_id: 'g0000000-0000-4000-8000-000000000001',
  grant_version: 1,
  issuer_company_id: 'c0000000-0000-4000-8000-000000000001',
  company_legal_name: 'Example Retail Ltd',
  tax_id: 'EU000000001',
  scopes: ['write_receipts', 'read_stores'],
  store_ids: [],
  store_access_mode: 'ALL_STORES',
};

export interface SetupOptions {
  env?: Record<string, string>;
  json?: boolean;
  debug?: boolean;
  profiles?: Record<string, ProfileConfig>;
  secrets?: Record<string, string>;
}

/** Every secret store operation in order, to check what is stored before what. */
export type Op = `${'set' | 'delete'} ${string}`;

export function setup(opts: SetupOptions = {}) {
  const mock = new MockAgent();
  mock.disableNetConnect();
  const t = testStreams({ json: Boolean(opts.json) });
  const clock = fixedClock(NOW);
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-auth-'));
  const api = createApiClient({
    baseUrl: BASE,
    io: t.io,
    debug: Boolean(opts.debug),
    clock,
    dispatcher: mock,
    sleep: async () => {},
    random: () => 0.5,
  });
  const config = memoryConfigStore(opts.profiles ?? {});
  const memory = memorySecretStore(opts.secrets ?? {});
  const ops: Op[] = [];
  const secrets: SecretStore & { dump(): Record<string, string> } = {
    ...memory,
    set: async (key, value) => {
      ops.push(`set ${key}`);
      await memory.set(key, value);
    },
    delete: async (key) => {
      ops.push(`delete ${key}`);
      return memory.delete(key);
    },
  };
  const f = createFactory({
    env: { SVC_STATE_DIR: stateDir, SVC_CONFIG_DIR: stateDir, SVC_CLIENT_ID: CLIENT_ID, ...opts.env },
    globals: { json: Boolean(opts.json), input: false, debug: Boolean(opts.debug), color: false },
    io: t.io,
    config,
    secrets,
    api,
    clock,
  });
  return {
    f,
    t,
    mock,
    pool: mock.get(BASE),
    config,
    secrets,
    ops,
    clock,
    stateDir,
    async done() {
      mock.assertNoPendingInterceptors();
      await mock.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

export function tokenResponse(token: string, scope = 'write_receipts') {
  return { statusCode: 200, data: { access_token: token, token_type: 'bearer', expires_in: 900, scope }, responseOptions: { headers: JSON_HEADERS } };
}

export function errorResponse(status: number, code: string) {
  return {
    statusCode: status,
    data: { error: code, error_description: `${code} for the test`, timestamp: '2025-01-01T00:00:00Z' },
    responseOptions: { headers: JSON_HEADERS },
  };
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
