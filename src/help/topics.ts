// `svc help environment` and `svc help exit-codes`: what docs/interface-decisions.md#exit-codes says, where a user looks.

export const ENVIRONMENT = `Environment variables (a flag wins over its variable):

  SVC_PROFILE              config profile (--profile; default: local, the sandbox at http://127.0.0.1:8787)
  SVC_BASE_URL             the service's address (--base-url); http:// only for loopback hosts
  SVC_DEBUG=1              HTTP trace on stderr, secrets redacted (--debug)
  CI=true                  never prompt (as --no-input, or stdin not a terminal)
  NO_COLOR, FORCE_COLOR    colour rules as everyone expects (--no-color)

  Credentials for CI, taking precedence over stored ones:
  SVC_API_KEY              a company API key (sent as X-API-Key)
  SVC_CLIENT_ID, SVC_CLIENT_SECRET, SVC_GRANT_ID
                           a client application and the Grant to act for
  SVC_TOKEN                an access token handed in: used as is, never stored
  SVC_PRIVATE_KEY_FILE     the PEM private key that decrypts return requests
  SVC_WEBHOOK_SECRET       a webhook signing secret for \`webhook listen\` and \`verify\`;
                           with no secret store, \`listen --subscribe\` reuses the
                           subscription to its URL and verifies with it

  Where things live:
  SVC_SECRET_STORE=keychain|file
                           force the secret backend (default: the OS keychain, probed;
                           without one, the local profile uses the private file by itself)
  SVC_CONFIG_DIR, SVC_STATE_DIR
                           override the XDG locations of config.json and of the state
  XDG_CACHE_HOME           svc/code-cache there: compiled code kept for quicker starts
                           (NODE_DISABLE_COMPILE_CACHE=1: none)
  SVC_DATABASE_URL         postgres://… the ledger and the webhook journal on a team's
                           PostgreSQL (a stored database-url never with a password)
  PGPASSWORD, PGPASSFILE, PGSSLMODE, PGSSLROOTCERT, PGOPTIONS, …
                           read as libpq reads them (~/.pgpass; sslmode default prefer;
                           PGOPTIONS='-c lock_timeout=30s' over svc's 10s lock wait and 60s
                           idle-in-transaction limit)
  SVC_RETURN_WINDOW_DAYS   days after a purchase a return is accepted (default 30)
  SVC_SANDBOX_PORT         the port \`sandbox start\` listens on (--port; default 8787)
  SVC_WEBHOOK_PORT         the port \`webhook listen\` listens on (--port; default 8790)
  SVC_WEBHOOK_CLAIM_SECONDS
                           lease of a delivery a listener claimed (team journal, default 30)

  Networks (docs/networks.md):
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY (either case)
                           proxies as curl and npm take them; loopback is never proxied;
                           credentials in the URL: http://user:password@host:port
  NODE_EXTRA_CA_CERTS      a PEM file of extra certificate authorities (a private CA)
  SVC_CA_FILE              the same, for svc alone
  SVC_HTTP_TIMEOUT         seconds to wait for an answer, or in its silence (default 30)
`;

export const EXIT_CODES = `Exit codes (the same with --json, where the error is a JSON object on stderr):

  0  ok
  1  failure (a bug, a disk, an unexpected answer; a TLS certificate svc cannot
     accept: untrusted issuer, expired, another name, no common TLS version; a
     proxy that wants credentials, 407; a redirect svc does not follow)
  2  usage or invalid input: the message names the flag or field (a webhook signature
     that does not verify, as a receiver refuses it with 400; no usable OS keychain,
     which SVC_SECRET_STORE=file answers; a state directory that is read-only or
     another user's, which SVC_STATE_DIR or its permissions answer)
  3  cancelled (Ctrl-C, "no" at a prompt, consent denied, a batch whose reader closed
     stdout before every line was started, as with | head -1)
  4  authentication needed (401, invalid_client, invalid_grant, no credentials, a
     credential variable set but empty; a return request no private key here opens)
  5  forbidden (403: a scope or store the Grant lacks; a privilege the team's database
     role lacks, such as CREATE for svc db migrate)
  6  not found
  7  conflict (409, already issued with other content, a lock or a port held by another
     process)
  8  service unavailable (network, 5xx or 429 after retries; the team's database
     unreachable, or a lock it holds not granted in time; the app of --forward-to
     not reached, or answering 5xx)
  9  partly failed: a command acting on several things (accept A B C, a batch, every Grant)
     did some and not others; each failure is reported as its own line or JSON element,
     the successes are on stdout as usual. When every one failed, their common code.

With --jq the command keeps its code (what it printed is filtered either way). jq's own:
  --jq ''            the identity, as jq ''
  halt_error         its message on stderr as jq prints it, exit with its status (5 unless given)
  a filter jq cannot compile          2 (jq: 3)
  an error on the data (Cannot index)  2, after the values before it (jq 1.7: 5)
`;
