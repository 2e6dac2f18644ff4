// Built-in profiles. `local` is the embedded sandbox (`svc sandbox start`), so svc works
// with no set-up at all; `sandbox` and `production` get their base URL from the user.
export const DEFAULT_PROFILE = 'local';
export const LOCAL_BASE_URL = 'http://127.0.0.1:8787';
export const DEFAULT_REDIRECT_URI = 'http://127.0.0.1:8765/callback';

export interface ProfileDefaults {
  baseUrl?: string;
  clientId?: string;
  redirectUri?: string;
  scopes?: string;
}

export const BUILTIN_PROFILES: Readonly<Record<string, ProfileDefaults>> = {
  local: { baseUrl: LOCAL_BASE_URL, redirectUri: DEFAULT_REDIRECT_URI },
  sandbox: { redirectUri: DEFAULT_REDIRECT_URI },
  production: { redirectUri: DEFAULT_REDIRECT_URI },
};
