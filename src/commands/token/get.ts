// `svc token get`: a valid access token for scripts (`curl -H "Authorization: Bearer $(svc token get)"`).
// stdout carries the bare token and nothing else.
import { issueToken } from '../../auth/session.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { println } from '../../io/streams.js';

export interface GetOptions {
  grant?: string | undefined;
  scope?: string | undefined;
  force: boolean;
}

export async function run(opts: GetOptions, f: Factory): Promise<void> {
  const token = await issueToken(f, opts);
  if (!f.io.json) return println(f.io, token.access_token);
  writeJson(f.io, {
    access_token: token.access_token,
    token_type: token.token_type,
    expires_at: token.expires_at,
    grant_id: token.grant_id,
    scope: token.scope,
  });
}
