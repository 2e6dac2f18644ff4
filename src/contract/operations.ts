// Every operation of the interface (docs/interface-decisions.md#the-services-interface) and of the sandbox's extensions
// (§7), with the zod schemas of its request and its answers: the source of the OpenAPI
// document (openapi.ts) and of the sandbox's own check of what it answers (a test mode).
import * as z from './zod.js';
import type { ZodType } from 'zod';
import { CreditNoteSubmission, CreditNoteSubmissionResult } from './credit-note.js';
import {
  AccessTokenResponse,
  AuthorizationCodeExchangeRequest,
  AuthorizationCodeExchangeResponse,
  ClientApplicationPublicKey,
  ClientApplicationPublicKeyRequest,
  GrantDetails,
  IssuerKey,
  RefreshRequest,
  TokenRecord,
  TokenRecords,
  TokenRequest,
} from './oauth.js';
import { ReceiptEmailRequest, ReceiptEmailResponse, ReceiptSubmission, ReceiptSubmissionResult } from './receipt.js';
import { ResolveRecipientRequest, ResolveRecipientResponse } from './recipient.js';
import { QueueItem, QueueItems, StatusUpdateRequest, StatusUpdateResponse } from './returns.js';
import { GrantRevocation } from './sandbox-grants.js';
import { OutboxMessageList, SandboxDeliveryList } from './sandbox-inspect.js';
import { BulkReturnRequestResult, BulkReturnRequestTrigger, ReturnRequestTrigger } from './sandbox-returns.js';
import { ClockAdvanceRequest, ClockAdvanceResponse, OutageRequest, OutageResponse, SandboxHealth, SandboxResetResponse } from './sandbox.js';
import { CreditNoteTemplateRequest, ReceiptTemplateRequest, UblDocument } from './template.js';
import { WebhookSubscription, WebhookSubscriptionRequest } from './webhook.js';

/** `client`: client_id and client_secret in the JSON body (docs/interface-decisions.md#authentication), not HTTP Basic. */
export type Auth = 'bearer' | 'bearerOrApiKey' | 'client' | 'none';

export interface Operation {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** With {param} segments, as the router and docs/interface-decisions.md#the-services-interface write them. */
  path: string;
  summary: string;
  auth: Auth;
  request?: ZodType;
  /** JSON answers by status; null: not JSON (a redirect, a page, a PDF). */
  responses: Readonly<Record<number, ZodType | null>>;
  sandboxOnly?: boolean;
}

const AnyJson = z.unknown();

export const OPERATIONS: readonly Operation[] = [
  { method: 'GET', path: '/oauth2/authorize', summary: 'Start an authorization (PKCE); answers the consent page or a redirect', auth: 'none', responses: { 200: null, 302: null } },
  { method: 'POST', path: '/oauth2/authorize/{requestId}', summary: 'Approve or deny an authorization request (consent page)', auth: 'none', responses: { 302: null, 200: null } },
  { method: 'POST', path: '/oauth2/authorization-code/exchange', summary: 'Redeem an authorization code for Grants (grant flow)', auth: 'client', request: AuthorizationCodeExchangeRequest, responses: { 200: AuthorizationCodeExchangeResponse } },
  { method: 'POST', path: '/oauth2/token', summary: 'An access token: client credentials for a Grant, or the code flow', auth: 'client', request: TokenRequest, responses: { 200: z.union([AccessTokenResponse, TokenRecords]) } },
  { method: 'POST', path: '/oauth2/refresh', summary: 'Rotate a refresh token (code flow)', auth: 'client', request: RefreshRequest, responses: { 200: TokenRecord } },
  { method: 'GET', path: '/oauth2/token/validate', summary: 'Whether the bearer token is valid', auth: 'bearer', responses: { 200: z.boolean() } },
  { method: 'GET', path: '/oauth2/grants/{grant_id}', summary: 'A Grant with its stores and scopes', auth: 'bearer', responses: { 200: GrantDetails } },
  { method: 'GET', path: '/client-application/{clientApplicationId}/public-key', summary: "The client application's public key", auth: 'bearerOrApiKey', responses: { 200: ClientApplicationPublicKey } },
  { method: 'POST', path: '/client-application/{clientApplicationId}/public-key', summary: 'Upload the client application\'s public key', auth: 'bearerOrApiKey', request: ClientApplicationPublicKeyRequest, responses: { 200: ClientApplicationPublicKey, 201: ClientApplicationPublicKey } },
  { method: 'POST', path: '/recipient/resolve', summary: "Resolve a customer's devices", auth: 'bearerOrApiKey', request: ResolveRecipientRequest, responses: { 200: ResolveRecipientResponse } },
  { method: 'POST', path: '/receipt/template', summary: 'The UBL template of a receipt (its hash is the templateHash)', auth: 'bearerOrApiKey', request: ReceiptTemplateRequest, responses: { 201: UblDocument, 200: UblDocument } },
  { method: 'POST', path: '/receipt/encrypted', summary: 'Submit a receipt encrypted per device (Idempotency-Key)', auth: 'bearerOrApiKey', request: ReceiptSubmission, responses: { 201: ReceiptSubmissionResult, 200: ReceiptSubmissionResult } },
  { method: 'POST', path: '/receipt/email', summary: 'Send a receipt by email as a PDF', auth: 'bearerOrApiKey', request: ReceiptEmailRequest, responses: { 202: ReceiptEmailResponse, 200: ReceiptEmailResponse } },
  { method: 'GET', path: '/credit-note', summary: 'The outstanding return request queue', auth: 'bearerOrApiKey', responses: { 200: QueueItems } },
  { method: 'PATCH', path: '/credit-note/requests/{requestId}/status', summary: "Move a return request's status", auth: 'bearerOrApiKey', request: StatusUpdateRequest, responses: { 200: StatusUpdateResponse } },
  { method: 'POST', path: '/credit-note/template', summary: 'The UBL template of a credit note', auth: 'bearerOrApiKey', request: CreditNoteTemplateRequest, responses: { 201: UblDocument, 200: UblDocument } },
  { method: 'POST', path: '/credit-note/encrypted', summary: 'Submit a credit note encrypted per device (Idempotency-Key)', auth: 'bearerOrApiKey', request: CreditNoteSubmission, responses: { 201: CreditNoteSubmissionResult, 200: CreditNoteSubmissionResult } },
  { method: 'GET', path: '/credit-note/{serviceReceiptId}/issuer-key', summary: "The issuer's key for a receipt's credit notes", auth: 'bearerOrApiKey', responses: { 200: IssuerKey } },
  { method: 'POST', path: '/webhook/subscription', summary: 'Subscribe a URL to events (the signing secret is in the answer)', auth: 'bearerOrApiKey', request: WebhookSubscriptionRequest, responses: { 201: WebhookSubscription, 200: WebhookSubscription } },
  { method: 'GET', path: '/webhook/subscription', summary: 'The subscriptions (sandbox extension, docs/interface-decisions.md#subscription-listing)', auth: 'bearerOrApiKey', responses: { 200: z.array(z.looseObject({ id: z.string() })) }, sandboxOnly: true },
  { method: 'DELETE', path: '/webhook/subscription/{subscriptionId}', summary: 'Remove a subscription (sandbox extension, docs/interface-decisions.md#subscription-listing)', auth: 'bearerOrApiKey', responses: { 204: null }, sandboxOnly: true },
  { method: 'GET', path: '/openapi.json', summary: 'This document (sandbox)', auth: 'none', responses: { 200: z.looseObject({ openapi: z.literal('3.1.0'), paths: z.record(z.string(), z.unknown()) }) }, sandboxOnly: true },
  { method: 'GET', path: '/sandbox/health', summary: 'Sandbox: liveness, version, start time and clock', auth: 'none', responses: { 200: SandboxHealth }, sandboxOnly: true },
  { method: 'POST', path: '/sandbox/reset', summary: 'Sandbox: drop all state', auth: 'none', responses: { 200: SandboxResetResponse }, sandboxOnly: true },
  { method: 'POST', path: '/sandbox/clock', summary: "Sandbox: advance the sandbox's clock", auth: 'none', request: ClockAdvanceRequest, responses: { 200: ClockAdvanceResponse }, sandboxOnly: true },
  { method: 'POST', path: '/sandbox/outage', summary: 'Sandbox: answer the next API requests 503 with a Retry-After', auth: 'none', request: OutageRequest, responses: { 200: OutageResponse }, sandboxOnly: true },
  { method: 'POST', path: '/sandbox/clock/reset', summary: "Sandbox: the sandbox's clock back to real time", auth: 'none', responses: { 200: ClockAdvanceResponse }, sandboxOnly: true },
  { method: 'GET', path: '/sandbox/outbox', summary: 'Sandbox: the emails sent', auth: 'none', responses: { 200: OutboxMessageList }, sandboxOnly: true },
  { method: 'GET', path: '/sandbox/outbox/{file}', summary: "Sandbox: an email's PDF", auth: 'none', responses: { 200: null }, sandboxOnly: true },
  { method: 'GET', path: '/sandbox/events', summary: 'Sandbox: the events raised', auth: 'none', responses: { 200: z.array(AnyJson) }, sandboxOnly: true },
  { method: 'GET', path: '/sandbox/deliveries', summary: 'Sandbox: every device delivery and whether it decrypted', auth: 'none', responses: { 200: SandboxDeliveryList }, sandboxOnly: true },
  { method: 'GET', path: '/sandbox/webhook-deliveries', summary: 'Sandbox: webhook delivery attempts', auth: 'none', responses: { 200: z.array(AnyJson) }, sandboxOnly: true },
  { method: 'POST', path: '/sandbox/receipts/{serviceReceiptId}/return-requests', summary: 'Sandbox: a customer asks to return items', auth: 'none', request: ReturnRequestTrigger, responses: { 201: QueueItem }, sandboxOnly: true },
  { method: 'POST', path: '/sandbox/return-requests/bulk', summary: 'Sandbox: many return requests at once', auth: 'none', request: BulkReturnRequestTrigger, responses: { 201: BulkReturnRequestResult }, sandboxOnly: true },
  { method: 'POST', path: '/sandbox/return-requests/{requestId}/cancel', summary: 'Sandbox: the customer cancels a return request', auth: 'none', responses: { 200: StatusUpdateResponse }, sandboxOnly: true },
  { method: 'POST', path: '/sandbox/grants/{grant_id}/revoke', summary: 'Sandbox: revoke a Grant', auth: 'none', responses: { 200: GrantRevocation }, sandboxOnly: true },
];

export function findOperation(method: string, path: string): Operation | undefined {
  return OPERATIONS.find((op) => op.method === method && op.path === path);
}
