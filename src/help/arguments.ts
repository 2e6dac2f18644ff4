// Where a value of each positional argument comes from: for commander's missing-argument
// error (polish.ts), and for the verbs whose argument is optional on a terminal (a picker
// chooses it there) and still required everywhere else.

const ARGUMENT_HINTS: Readonly<Record<string, string>> = {
  'request-id': 'the return request; `svc credit-note poll` lists their IDs',
  'grant-id': 'a Grant; `svc grants list` lists them',
  'event-id': 'a received event; `svc webhook events` lists them (a prefix of 6+ characters will do)',
  id: 'a subscription; `svc webhook list` lists them (a prefix of 6+ characters will do)',
  'service-receipt-id': 'a receipt the service issued; `svc receipt list` lists this machine\'s',
  'key-id': 'a key pair; `svc keys list` lists them',
  key: 'a setting: base-url, client-id, redirect-uri, grant, scopes or database-url (`svc config list`)',
  value: 'the new value of the setting',
  status: 'ACCEPTED, PARTIALLY_ACCEPTED, REJECTED or COMPLETED',
  seconds: 'a duration: 90, 15m, 1h or 30d',
  shell: 'bash, zsh or fish',
  method: 'an HTTP method, e.g. `svc api GET /credit-note`',
  path: 'a path of the interface, e.g. /credit-note (tab completes them)',
};

/** "missing REQUEST-ID: the return request; `svc credit-note poll` lists their IDs" */
export function missingArgumentText(name: string): string {
  const hint = ARGUMENT_HINTS[name];
  return `missing ${name.toUpperCase()}${hint ? `: ${hint}` : ''}`;
}
