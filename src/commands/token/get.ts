// `svc token get`: a valid access token for scripts (`curl -H "Authorization: Bearer $(svc token get)"`).
// stdout carries the bare token and nothing else.
import { handedInToken, issueToken } from '../../auth/session.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { note, println } from '../../io/streams.js';

export interface GetOptions {
  grant?: string | undefined;
  scope?: string | undefined;
  force: boolean;
}

export async function run(opts: GetOptions, f: Factory): Promise<void> {
  const handedIn = handedInToken(f);
  if (handedIn !== undefined) {
    // The token every other command would use (docs/interface-decisions.md#credentials-from-the-environment SVC_TOKEN): as it is, with nothing known about it.
    if (opts.grant !== undefined || opts.scope !== undefined || opts.force) note(f.io, 'note: SVC_TOKEN is set and used as it is: --grant, --scope and --force change nothing');
    if (!f.io.json) return println(f.io, handedIn);
    return writeJson(f.io, { access_token: handedIn, token_type: 'Bearer', expires_at: null, grant_id: null, scope: null, source: 'SVC_TOKEN' });
  }
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
