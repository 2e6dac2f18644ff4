// Built-in profiles. `local` is the embedded sandbox (`svc sandbox start`), so svc works
// with no set-up at all: its client is the fixture's approved application, whose secret is
// a published sandbox value (fixtures/sandbox.json), not a credential. `sandbox` and
// `production` get their base URL and client from the user.
export const DEFAULT_PROFILE = 'local';
export const LOCAL_BASE_URL = 'http://127.0.0.1:8787';
export const DEFAULT_REDIRECT_URI = 'http://127.0.0.1:8765/callback';
export const DEFAULT_SCOPES = 'write_receipts read_stores manage_client_applications';

export interface ProfileDefaults {
  baseUrl?: string;
  clientId?: string;
  /** Only for the local sandbox's fixture client. */
  clientSecret?: string;
  redirectUri?: string;
  scopes?: string;
}

export const SANDBOX_CLIENT_ID = 'app_sandbox_pos';
export const SANDBOX_CLIENT_SECRET = 'cs_sandbox_pos_5f3c9d2e8a714b06a1e47c2d9b80f6e3';

export const BUILTIN_PROFILES: Readonly<Record<string, ProfileDefaults>> = {
  local: {
    baseUrl: LOCAL_BASE_URL,
    clientId: SANDBOX_CLIENT_ID,
    clientSecret: SANDBOX_CLIENT_SECRET,
    redirectUri: DEFAULT_REDIRECT_URI,
    scopes: DEFAULT_SCOPES,
  },
  sandbox: { redirectUri: DEFAULT_REDIRECT_URI, scopes: DEFAULT_SCOPES },
  production: { redirectUri: DEFAULT_REDIRECT_URI, scopes: DEFAULT_SCOPES },
};
