// The first step of `receipt template`, `send` and `email`: the merchant's template request,
// checked locally so that an invalid receipt is never sent (the service's template is then
// fetched by src/receipts/template.ts).
import { ReceiptTemplateRequest } from '../../contract/template.js';
import { unknownMembers } from '../../contract/unknown-members.js';
import { parseOrThrow } from '../../contract/validate.js';
import { ValidationError } from '../../errors.js';
import type { ZodType } from 'zod';
import type { Factory } from '../../factory.js';
import { inputName, readJsonInput } from '../../io/input.js';
import { note } from '../../io/streams.js';

/**
 * The request of `--file`, with `storeId` from --store and `issueDate` from --issue-date when
 * given; ValidationError (exit 2) when invalid. `--issue-date now` dates a sample receipt
 * today, so that its return window (30 days) is open whatever day the tour is run.
 */
export async function readTemplateRequest(f: Factory, file: string, storeId?: string, issueDate?: string, strict?: boolean): Promise<ReceiptTemplateRequest> {
  const value = await readJsonInput(file, f);
  const request = parseOrThrow(ReceiptTemplateRequest, value, inputName(file));
  checkMembers(f, ReceiptTemplateRequest, value, inputName(file), strict);
  const withStore = storeId === undefined ? request : parseOrThrow(ReceiptTemplateRequest, { ...request, storeId }, '--store');
  if (issueDate === undefined) return withStore;
  const date = issueDate.trim().toLowerCase() === 'now' ? new Date(f.clock.now()).toISOString() : issueDate.trim();
  return parseOrThrow(ReceiptTemplateRequest, { ...withStore, issueDate: date }, '--issue-date');
}

/**
 * Members the interface does not name (`products[0].colour`, a typo as often as not): a
 * warning naming each, and with --strict a refusal (exit 2). Not refused by default, since
 * docs/interface-decisions.md#unknown-members-and-values keeps unknown members for a service newer than svc; see docs/receipts.md.
 */
export function checkMembers(f: Factory, schema: ZodType, value: unknown, what: string, strict: boolean | undefined): void {
  const unknown = unknownMembers(schema, value);
  if (unknown.length === 0) return;
  if (strict) {
    throw new ValidationError(what, unknown.map((path) => ({ path, message: 'not a member the interface names (--strict)' })), {
      hint: 'correct or remove these members, or leave out --strict to send them as they are',
    });
  }
  note(f.io, `warning: ${what} has ${unknown.length === 1 ? 'a member' : 'members'} the interface does not name, sent as ${unknown.length === 1 ? 'it is' : 'they are'}: ${unknown.join(', ')} (a typo? --strict refuses them)`);
}
