// Shared by the OAuth sandbox tests: a sandbox in-process with a fixed clock, the fixture's
// client, PKCE pairs, and the administrator's side of a consent driven through the page.
import { createHash, randomBytes } from 'node:crypto';
import { fixedClock } from '../../src/clock.js';
import type { Sandbox } from '../../src/sandbox/context.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/server.js';

export const START = Date.UTC(2030, 5, 1, 12, 0, 0);
export const RETAIL = 'c0000000-0000-4000-8000-000000000001';
export const FOODS = 'c0000000-0000-4000-8000-000000000002';
export const RETAIL_STORE_A = '50000000-0000-4000-8000-000000000011';
export const RETAIL_STORE_B = '50000000-0000-4000-8000-000000000012';
export const RETAIL_STORE_INACTIVE = '50000000-0000-4000-8000-000000000013';
export const FOODS_STORE = '50000000-0000-4000-8000-000000000021';
export const RETAIL_API_KEY = 'sk_sandbox_example_retail_7c1e4b9a2f6d4e0b8a3c5d7e9f1a2b3c';
export const FOODS_API_KEY = 'sk_sandbox_sample_foods_4d8f2a6c1e9b4c3a7f5e0d2b8c6a4e1f';
export const CLIENT_ID = 'app_sandbox_pos';
export const CLIENT_SECRET = 'cs_sandbox_pos_5f3c9d2e8a714b06a1e47c2d9b80f6e3';
export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
export const CLIENT = { client_id: CLIENT_ID, client_secret: CLIENT_SECRET };

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface OAuthHarness {
  running: RunningSandbox;
  /** The route groups' view of the running sandbox, for the guard's helpers. */
  sandbox: Sandbox;
  /** Never follows redirects. */
  get(path: string, headers?: Record<string, string>): Promise<Answer>;
  /** JSON unless `form` is set. */
  post(path: string, body?: Record<string, unknown>, opts?: { form?: boolean; headers?: Record<string, string> }): Promise<Answer>;
  advance(seconds: number): Promise<void>;
  /** Back to the fixture and the start time. */
  reset(): void;
  close(): Promise<void>;
}

export async function startOAuthSandbox(options: SandboxOptions = {}): Promise<OAuthHarness> {
  const running = await startSandbox({ clock: fixedClock(START), ...options });
  const sandbox: Sandbox = {
    state: running.state,
    clock: running.clock,
    autoApprove: options.autoApprove ?? false,
    version: 'test',
    startedAt: running.clock.iso(),
    stateSince: () => running.clock.iso(),
    persistent: false,
    log: () => {},
    reset: () => {},
  };
  const answer = async (res: Response): Promise<Answer> => {
    const text = await res.text();
    let body: unknown = text;
    if (res.headers.get('content-type')?.startsWith('application/json')) body = JSON.parse(text);
    return { status: res.status, headers: res.headers, body, text };
  };
  return {
    running,
    sandbox,
    get: async (path, headers = {}) => answer(await fetch(`${running.url}${path}`, { headers, redirect: 'manual' })),
    async post(path, body, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      let payload: string | undefined;
      if (body !== undefined) {
        headers['content-type'] = opts.form ? 'application/x-www-form-urlencoded' : 'application/json';
        payload = opts.form ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body);
      }
      return answer(await fetch(`${running.url}${path}`, { method: 'POST', headers, body: payload, redirect: 'manual' }));
    },
    async advance(seconds) {
      running.clock.advance(seconds);
    },
    reset() {
      running.state.reset();
      running.clock.reset();
    },
    close: () => running.close(),
  };
}

export function authorizePath(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, value);
  return `/oauth2/authorize?${query.toString()}`;
}

/** A valid authorization request; override or drop (undefined) any parameter. */
export function authorizeParams(p: Pkce, overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    scope: 'write_receipts read_stores',
    code_challenge: p.challenge,
    code_challenge_method: 'S256',
    state: 'st4te-value',
    ...overrides,
  };
}

/** The consent page's form action and CSRF token. */
export function formOf(page: string): { action: string; csrf: string } {
  const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page)?.[1];
  if (!action || !csrf) throw new Error(`no consent form in:\n${page}`);
  return { action, csrf };
}

/** The administrator's choice: companies by id, each with all stores or a selection. */
export type Choice = Record<string, 'all' | string[]>;

export function consentForm(csrf: string, choice: Choice, decision = 'approve'): Record<string, string> {
  const form: Record<string, string> = { csrf_token: csrf, decision };
  for (const [companyId, stores] of Object.entries(choice)) {
    form[`company:${companyId}`] = 'on';
    form[`stores:${companyId}`] = stores === 'all' ? 'all' : 'selected';
    if (stores !== 'all') for (const id of stores) form[`store:${companyId}:${id}`] = 'on';
  }
  return form;
}

/** Opens the consent page and approves: the callback URL the sandbox redirects to. */
export async function approve(h: OAuthHarness, p: Pkce, choice: Choice = { [RETAIL]: 'all' }, overrides: Record<string, string | undefined> = {}): Promise<URL> {
  const page = await h.get(authorizePath(authorizeParams(p, overrides)));
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${page.text}`);
  const { action, csrf } = formOf(page.text);
  const answer = await h.post(action, consentForm(csrf, choice), { form: true, headers: { origin: h.running.url } });
  const location = answer.headers.get('location');
  if (answer.status !== 302 || !location) throw new Error(`approval: ${answer.status} ${answer.text}`);
  return new URL(location);
}

export async function codeFor(h: OAuthHarness, p: Pkce, choice?: Choice, overrides?: Record<string, string | undefined>): Promise<string> {
  const code = (await approve(h, p, choice, overrides)).searchParams.get('code');
  if (!code) throw new Error('no code in the callback');
  return code;
}

/** Consent and code exchange: the Grants of the chosen companies. */
export async function grantsFor(h: OAuthHarness, choice?: Choice, scope?: string): Promise<any[]> {
  const p = pkce();
  const code = await codeFor(h, p, choice, scope === undefined ? {} : { scope });
  const answer = await h.post('/oauth2/authorization-code/exchange', { code, ...CLIENT, code_verifier: p.verifier });
  if (answer.status !== 200) throw new Error(`exchange: ${answer.status} ${answer.text}`);
  return answer.body.grants;
}

export async function clientCredentials(h: OAuthHarness, grantId: string, scope: string): Promise<Answer> {
  return h.post('/oauth2/token', { grant_type: 'client_credentials', ...CLIENT, grant_id: grantId, scope });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
