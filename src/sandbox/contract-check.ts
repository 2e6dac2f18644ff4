// A test mode of the sandbox (SVC_SANDBOX_CHECK_CONTRACT=1, which the end-to-end tests set):
// every JSON answer is checked against the schema the interface gives that operation and
// status (src/contract/operations.ts, the source of the OpenAPI document), and every error
// against the error body of docs/interface-decisions.md#error-bodies. A mismatch is logged as a contract violation and answered 500,
// so the test that caused it fails where it happened.
import { ErrorBody } from '../contract/error.js';
import { findOperation } from '../contract/operations.js';
import { validate } from '../contract/validate.js';
import type { Reply } from './router.js';

export function checkReply(method: string, pattern: string, reply: Reply, log: (line: string) => void): Reply {
  const op = findOperation(method, pattern);
  if (!op) return violation(`${method} ${pattern} is not an operation of the interface`, log);
  const type = String(reply.headers['Content-Type'] ?? reply.headers['content-type'] ?? '');
  const schema = reply.status >= 400 ? ErrorBody : op.responses[reply.status];
  if (schema === undefined) return violation(`${method} ${pattern} answered ${reply.status}, which the interface does not give it`, log);
  if (schema === null || !type.startsWith('application/json')) return reply;
  let body: unknown;
  try {
    body = JSON.parse(reply.body.toString());
  } catch {
    return violation(`${method} ${pattern} answered ${reply.status} with a body that is not JSON`, log);
  }
  const checked = validate(schema, body);
  if (checked.success) return reply;
  return violation(`${method} ${pattern} ${reply.status}: ${checked.issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`, log);
}

function violation(what: string, log: (line: string) => void): Reply {
  log(`contract violation: ${what}`);
  return {
    status: 500,
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ error: 'server_error', error_description: `the sandbox broke the contract: ${what}`, timestamp: new Date().toISOString() }),
  };
}
