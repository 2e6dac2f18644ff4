// `svc sandbox trigger return-request SERVICE_RECEIPT_ID --companies N [--count M]`: one
// return request in each of N of a platform's companies at once (a sandbox started with
// `--companies`), or M dealt out over them in turn,
// through the bulk trigger with events, so that polls and listeners across Grants have
// something of every company to show. Prints the request IDs, one a line.
import { BulkReturnRequestResult, type ReturnRequestTrigger } from '../../contract/sandbox-returns.js';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { counted } from '../../io/plural.js';
import { note, println } from '../../io/streams.js';
import { sandboxRequest } from './request.js';

export function parseCompanies(value: string): number {
  const n = /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 1)) throw new UsageError(`--companies: "${value}" is not a whole number from 1`);
  return n;
}

export async function spreadReturnRequests(f: Factory, serviceReceiptId: string, body: ReturnRequestTrigger, companies: number, count = companies): Promise<void> {
  // Not retried: a repeat after a lost answer would be a second round of return requests.
  const result = await sandboxRequest(f, {
    method: 'POST',
    path: '/sandbox/return-requests/bulk',
    body: { ...body, serviceReceiptId, count, companies, events: true },
    schema: BulkReturnRequestResult,
  });
  if (f.io.json) {
    writeJson(f.io, result);
    return;
  }
  for (const id of result.requestIds) println(f.io, id);
  // The companies that got one, as the sandbox answered: `--count 20` over 300 reaches 20.
  const reached = result.companies === undefined ? 1 : result.companies.filter((c) => c.count > 0).length;
  const asked = reached < companies ? ` (one each: --count ${count} is fewer than --companies ${companies})` : '';
  note(f.io, `${counted(result.count, 'return request')} in ${counted(reached, 'company', 'companies')}${asked}; \`svc credit-note poll --all-grants\` shows them all, \`svc credit-note poll --grant TAX_ID\` one company's (tax IDs: \`svc grants list\`)`);
}
