// The recipient directory (customers of the fixture and their devices) and the matches that
// `POST /recipient/resolve` hands out. A match pins the devices it named, for the company
// that asked, for 15 minutes: a submission must encrypt for exactly those devices.
import { randomUUID } from 'node:crypto';
import type { ResolveRecipientRequest } from '../contract/recipient.js';
import type { Sandbox } from './context.js';
import { findReceipt } from './receipts.js';
import { HttpError, type ErrorDetail } from './router.js';
import { defineSlice, type Customer, type Device } from './state.js';

export const MATCH_TTL_SECONDS = 15 * 60;

export interface Match {
  readonly matchId: string;
  readonly companyId: string;
  readonly customerId: string;
  /** Device ids, in the order the response listed them. */
  readonly recipientIds: readonly string[];
  /** Sandbox-clock milliseconds. */
  readonly expiresAt: number;
}

const matches = defineSlice('matches', () => new Map<string, Match>());

/**
 * The request with identifiers in the form the directory compares: an IBAN without spaces
 * in capitals, a card number without spaces or dashes, a phone number without separators.
 * Anything else is left for the schema to judge.
 */
export function normaliseLookup(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const request = { ...(body as Record<string, unknown>) };
  const tidy = (key: string, clean: (value: string) => string) => {
    const value = request[key];
    if (typeof value === 'string') request[key] = clean(value);
  };
  tidy('email', (v) => v.trim());
  tidy('phone', (v) => v.replace(/[\s().-]/g, ''));
  tidy('iban', (v) => v.replace(/\s/g, '').toUpperCase());
  tidy('cardNumber', (v) => v.replace(/[\s-]/g, ''));
  return request;
}

/**
 * The one customer every given identifier points at, or undefined. By `serviceReceiptId`:
 * the owner of a receipt this company issued.
 */
export function findCustomer(sandbox: Sandbox, companyId: string, request: ResolveRecipientRequest): Customer | undefined {
  let owner: string | undefined;
  if (request.serviceReceiptId !== undefined) {
    owner = findReceipt(sandbox, request.serviceReceiptId, companyId)?.customerId;
    if (owner === undefined) return undefined;
  }
  const email = request.email?.toLowerCase();
  return [...sandbox.state.customers.values()].find(
    (customer) =>
      (email === undefined || customer.email.toLowerCase() === email) &&
      (request.phone === undefined || customer.phone === request.phone) &&
      (request.iban === undefined || customer.iban === request.iban) &&
      (request.cardNumber === undefined || customer.cardNumber === request.cardNumber) &&
      (owner === undefined || customer.id === owner),
  );
}

export function issueMatch(sandbox: Sandbox, companyId: string, customer: Customer, devices: readonly Device[]): Match {
  const match: Match = {
    matchId: randomUUID(),
    companyId,
    customerId: customer.id,
    recipientIds: devices.map((d) => d.id),
    expiresAt: sandbox.clock.now() + MATCH_TTL_SECONDS * 1000,
  };
  sandbox.state.slice(matches).set(match.matchId, match);
  return match;
}

/**
 * The live match of this company, or a 400 naming `path`. Unknown, expired and another
 * company's matches read the same, so a matchId reveals nothing about anyone else.
 */
export function requireMatch(sandbox: Sandbox, companyId: string, matchId: string, path = 'matchId'): Match {
  const match = sandbox.state.slice(matches).get(matchId);
  if (!match || match.companyId !== companyId || sandbox.clock.now() >= match.expiresAt) {
    throw new HttpError('validation_failed', 'the matchId is unknown or has expired', {
      details: [{ path, message: `is unknown or has expired (a match lasts ${MATCH_TTL_SECONDS / 60} minutes): resolve the recipient again` }],
    });
  }
  return match;
}

/** What a submission's entry says about whom it is for. */
export interface RecipientEntry {
  readonly recipientId: string;
  readonly receiverType?: string | undefined;
  readonly supplierPartyId: string;
}

/**
 * Every matched device exactly once, nothing else, each entry labelled as the template's
 * supplier. `field` is the entries' member in the submission, for the details' paths.
 */
export function coverageProblems(match: Match, entries: readonly RecipientEntry[], companyId: string, field: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const wanted = new Set(match.recipientIds);
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    const at = `${field}.${i}`;
    if (!wanted.has(entry.recipientId)) problems.push({ path: `${at}.recipientId`, message: 'is not a recipient of this match' });
    else if (seen.has(entry.recipientId)) problems.push({ path: `${at}.recipientId`, message: 'appears more than once: one entry per recipient' });
    seen.add(entry.recipientId);
    if (entry.receiverType !== undefined && entry.receiverType !== 'DEVICE')
      problems.push({ path: `${at}.receiverType`, message: 'must be "DEVICE", as the match returned it' });
    if (entry.supplierPartyId !== companyId)
      problems.push({ path: `${at}.supplierPartyId`, message: "must be the template's accountingSupplierParty.partyIdentification[0].id.value" });
  });
  for (const recipientId of match.recipientIds) {
    if (!seen.has(recipientId))
      problems.push({ path: field, message: `has no entry for recipient ${recipientId}: encrypt for every recipient the match returned` });
  }
  return problems;
}
