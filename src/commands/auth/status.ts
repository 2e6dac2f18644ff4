// A diagnostic, like `gh auth status`: it reports everything it can find out from this
// machine and exits 0 (README), also when the secret store cannot be opened or read: the
// report says so and stderr gives the hint. An invalid SVC_SECRET_STORE stays a usage
// error (exit 2). `--check` asks the service, and exits with what stops the profile.
import { builtinSecret } from '../../auth/credentials.js';
import { readAuthorizations } from '../../auth/profile.js';
import { profileTokenCache } from '../../auth/session.js';
import { resolveProfileSettings, type Setting } from '../../config/settings.js';
import { listKeys } from '../../keys/keystore.js';
import { SvcError, UsageError } from '../../errors.js';
import { humanDuration } from '../../io/duration.js';
import type { Factory } from '../../factory.js';
import { writeRecord } from '../../io/output.js';
import { note } from '../../io/streams.js';
import { envVariableFor } from '../../secrets/env.js';
import { chooseSecretBackend } from '../../secrets/open.js';
import type { SecretBackend, SecretStore } from '../../secrets/store.js';
import { readLocalSubscriptions } from '../../webhook/subscriptions.js';
import { counted } from '../../io/plural.js';

export interface StatusOptions {
  /** Ask the service too: exit non-zero, naming why, when the profile cannot work. */
  check?: boolean | undefined;
}

interface CheckResult {
  ok: boolean;
  /** What was asked, or why it failed. */
  detail: string;
  error?: SvcError;
}

/** Every secret svc keeps per profile; the tokens join when login lands. */
export const STATUS_KEYS = ['client-secret', 'api-key', 'webhook-secret', 'private-key'] as const;

export interface SecretState {
  /** null when the store could not be asked. */
  set: boolean | null;
  /** 'default': the built-in sandbox client's secret, for the built-in profile's client ID. */
  source: 'env' | SecretBackend | 'default' | null;
  /** The environment variable the value comes from. */
  variable?: string;
  error?: string;
  /** private-key: the key pairs of `svc keys` (each its own entry), and the current one's ID. */
  keyPairs?: number | null;
  currentKeyId?: string | null;
  /** webhook-secret: the subscriptions of `svc webhook subscribe`, each with its own secret. */
  subscriptions?: number | null;
}

export async function run(opts: StatusOptions, f: Factory): Promise<void> {
  // Not f.settings(): a profile without a base URL yet is worth a status too.
  const settings = resolveProfileSettings({ flags: f.globals, env: f.env, config: await f.config() });
  let store: SecretStore | undefined;
  let failure: SvcError | undefined;
  try {
    store = await f.secrets();
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    failure = error;
  }

  const states: [string, SecretState][] = [];
  for (const key of STATUS_KEYS) {
    const variable = envVariableFor(f.env, key);
    if (variable !== undefined) states.push([key, { set: true, source: 'env', variable }]);
    else if (!store) states.push([key, { set: null, source: null }]);
    else {
      try {
        const stored = (await store.get(key)) !== null;
        states.push([key, { set: stored, source: stored ? store.backend : null }]);
      } catch (error) {
        if (!(error instanceof SvcError)) throw error;
        failure ??= error;
        states.push([key, { set: null, source: null, error: error.message }]);
      }
    }
  }

  // Entries beside the single ones: key pairs and subscription secrets, counted, never read.
  const clientSecret = states.find(([key]) => key === 'client-secret')?.[1];
  const clientId = settings.clientId?.value;
  if (clientSecret?.set === false && clientId !== undefined && builtinSecret(settings.profile.value, clientId) !== undefined) {
    clientSecret.set = true;
    clientSecret.source = 'default';
  }
  const privateKey = states.find(([key]) => key === 'private-key')?.[1];
  if (privateKey) {
    const keys = store ? await listKeys(f).catch(() => null) : null;
    privateKey.keyPairs = keys?.length ?? null;
    privateKey.currentKeyId = keys?.find((k) => k.current)?.keyId ?? null;
  }
  const webhookSecret = states.find(([key]) => key === 'webhook-secret')?.[1];
  if (webhookSecret) webhookSecret.subscriptions = (await readLocalSubscriptions(f).catch(() => null))?.length ?? null;

  const authorizations = await describeAuthorizations(f, settings.profile.value, store);
  const check = opts.check ? await checkWithService(f) : undefined;
  const show = (s: Setting | undefined) => (s ? `${s.value} (${s.source})` : 'not set');
  writeRecord(
    f.io,
    [
      ['profile', show(settings.profile)],
      ['base URL', show(settings.baseUrl)],
      ['client ID', show(settings.clientId)],
      ['secret store', store ? store.describe() : `unavailable: ${failure?.message ?? ''}`],
      ...states.map(([key, state]): [string, string] => [key, describeState(state)]),
      ...authorizations.map((a): [string, string] => [
        a.kind,
        `${a.id} ${a.name}${a.isDefault ? ' (default)' : ''}; ${describeTokens(a.tokens, f.clock.now())}`,
      ]),
      ...(check ? [['check', check.ok ? `ok: ${check.detail}` : `FAILED: ${check.detail}`] as [string, string]] : []),
    ],
    {
      profile: settings.profile,
      baseUrl: settings.baseUrl ?? null,
      clientId: settings.clientId ?? null,
      secretStore: store
        ? { backend: store.backend, description: store.describe() }
        : { backend: attemptedBackend(f), description: null, error: failure?.message ?? null },
      secrets: Object.fromEntries(states),
      authorizations,
      ...(check ? { check: { ok: check.ok, detail: check.detail } } : {}),
    },
  );
  if (failure instanceof UsageError) throw failure;
  if (failure) note(f.io, `warning: ${failure.message}${failure.hint ? `\nhint: ${failure.hint}` : ''}`);
  if (check?.error) throw check.error;
}

/**
 * `--check`: the credentials this profile would use for `write_receipts` (an API key, or a
 * Grant's token, renewed if need be) presented to the service with a read that changes
 * nothing, the return queue. Whatever stops it (no login, a revoked Grant, a wrong key, a
 * service that does not answer) is the answer, with its exit code.
 */
async function checkWithService(f: Factory): Promise<CheckResult> {
  try {
    const { writeReceiptsCaller } = await import('../../auth/caller.js');
    const { listReturnRequests } = await import('../../api/credit-note.js');
    const caller = await writeReceiptsCaller(f);
    await listReturnRequests(caller);
    const how = 'apiKey' in caller.auth ? 'the API key' : 'a token of the Grant';
    return { ok: true, detail: `the service at ${caller.api.baseUrl} accepted ${how} (GET /credit-note)` };
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    return { ok: false, detail: error.message, error };
  }
}

interface AuthorizationState {
  kind: 'grant' | 'company';
  id: string;
  name: string;
  isDefault: boolean;
  /** Cached access tokens by scope: expiry only, never the token. */
  tokens: { scope: string; expiresAt: string }[] | null;
}

/** Grants (grant flow) or companies (code flow) of the profile, with their cached tokens' expiry. */
async function describeAuthorizations(f: Factory, profile: string, store: SecretStore | undefined): Promise<AuthorizationState[]> {
  const auth = readAuthorizations(await f.config(), profile);
  const cache = store ? profileTokenCache(f, store, profile) : undefined;
  const tokensOf = async (id: string) => {
    if (!cache) return null;
    try {
      return Object.values(await cache.read(id)).map((t) => ({ scope: t.scope, expiresAt: t.expires_at }));
    } catch (error) {
      if (error instanceof SvcError) return null;
      throw error;
    }
  };
  return [
    ...(await Promise.all(
      auth.grants.map(async (g) => ({
        kind: 'grant' as const,
        id: g.grant_id,
        name: g.company_legal_name,
        isDefault: auth.grant === g.grant_id,
        tokens: await tokensOf(g.grant_id),
      })),
    )),
    ...(await Promise.all(
      auth.companies.map(async (c) => ({
        kind: 'company' as const,
        id: c.merchant_id,
        name: c.company_legal_name,
        isDefault: auth.grant === c.merchant_id,
        tokens: await tokensOf(c.merchant_id),
      })),
    )),
  ];
}

function describeTokens(tokens: AuthorizationState['tokens'], now: number): string {
  if (tokens === null) return 'tokens unknown';
  if (tokens.length === 0) return 'no cached token';
  return tokens
    .map((t) => {
      const left = Math.round((Date.parse(t.expiresAt) - now) / 1000);
      return `${t.scope} token ${left > 0 ? `expires in ${humanDuration(left)}` : 'expired'}`;
    })
    .join(', ');
}

function describeState(state: SecretState): string {
  const extra = [
    state.keyPairs ? `${counted(state.keyPairs, 'key pair')} of \`svc keys\`, current ${state.currentKeyId ?? 'none'}` : undefined,
    state.subscriptions ? counted(state.subscriptions, 'subscription secret') : undefined,
  ].filter((e) => e !== undefined);
  const single = singleState(state);
  if (extra.length === 0) return single;
  return state.set === false ? extra.join('; ') : [single, ...extra].join('; ');
}

function singleState(state: SecretState): string {
  if (state.set === null) return state.error ? `unknown: ${state.error}` : 'unknown (secret store unavailable)';
  if (!state.set) return 'not set';
  if (state.source === 'default') return 'set (built-in sandbox client secret)';
  return state.source === 'env' ? `set (env ${state.variable ?? ''})` : `set (${state.source ?? ''})`;
}

/** Which backend failed to open; null when SVC_SECRET_STORE itself is invalid. */
function attemptedBackend(f: Factory): SecretBackend | null {
  try {
    return chooseSecretBackend(f.env);
  } catch {
    return null;
  }
}
