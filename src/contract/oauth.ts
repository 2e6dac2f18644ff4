// OAuth resources and requests (docs/interface-decisions.md#oauth-flows, #client-application-keys;
// docs/interface-decisions.md#oauth-details, #client-application-key-shape). Requests may arrive form-encoded or as JSON: either way they are
// validated as objects of strings.
import * as z from './zod.js';
import { Base64, KeyAlgorithm, NonEmptyString, OpenEnum } from './common.js';

export const SCOPES = [
  'write_receipts',
  'read_receipts',
  'write_stores',
  'read_stores',
  'company_access',
  'account_access',
  'manage_client_applications',
  'read_client_applications',
] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

/** docs/interface-decisions.md#oauth-details: `ALL_STORES` is our name for unrestricted access (then `store_ids` is empty). */
export const StoreAccessMode = z.enum(['SELECTED_STORES', 'ALL_STORES']);
export type StoreAccessMode = z.infer<typeof StoreAccessMode>;

export const Grant = z.looseObject({
  grant_id: NonEmptyString,
  grant_version: z.int(),
  issuer_company_id: NonEmptyString,
  company_legal_name: z.string(),
  tax_id: z.string(),
  scopes: z.array(OpenEnum),
  store_ids: z.array(NonEmptyString),
  store_access_mode: OpenEnum,
});
export type Grant = z.infer<typeof Grant>;

export const Store = z.looseObject({
  id: NonEmptyString,
  storeName: z.string(),
  storeCode: z.string(),
  isActive: z.boolean(),
});
export type Store = z.infer<typeof Store>;

export const GrantDetails = z.looseObject({
  grant_id: NonEmptyString,
  grant_version: z.int(),
  company: z.looseObject({ id: NonEmptyString, companyLegalName: z.string() }),
  stores: z.array(Store),
  scopes: z.array(OpenEnum),
  store_access_mode: OpenEnum,
});
export type GrantDetails = z.infer<typeof GrantDetails>;

/** Grant-based (`client_credentials`) flow; no refresh token. */
export const AccessTokenResponse = z.looseObject({
  access_token: NonEmptyString,
  token_type: NonEmptyString,
  expires_in: z.int().positive(),
  scope: z.string(),
});
export type AccessTokenResponse = z.infer<typeof AccessTokenResponse>;

/** Code-exchange flow: one record per authorized company, and the answer of `/oauth2/refresh`. */
export const TokenRecord = z.looseObject({
  access_token: NonEmptyString,
  refresh_token: NonEmptyString,
  token_type: NonEmptyString,
  expires_at: NonEmptyString,
  refresh_expires_at: NonEmptyString,
  merchant_id: NonEmptyString,
  tax_id: z.string(),
  company_legal_name: z.string(),
  /** Null for company-level tokens. */
  customer_id: z.string().nullable(),
});
export type TokenRecord = z.infer<typeof TokenRecord>;

export const TokenRecords = z.array(TokenRecord);
export type TokenRecords = z.infer<typeof TokenRecords>;

export const AuthorizationCodeExchangeRequest = z.looseObject({
  code: NonEmptyString,
  client_id: NonEmptyString,
  client_secret: NonEmptyString,
  code_verifier: NonEmptyString,
});
export type AuthorizationCodeExchangeRequest = z.infer<typeof AuthorizationCodeExchangeRequest>;

export const AuthorizationCodeExchangeResponse = z.looseObject({ grants: z.array(Grant) });
export type AuthorizationCodeExchangeResponse = z.infer<typeof AuthorizationCodeExchangeResponse>;

export const ClientCredentialsTokenRequest = z.looseObject({
  grant_type: z.literal('client_credentials'),
  client_id: NonEmptyString,
  client_secret: NonEmptyString,
  grant_id: NonEmptyString,
  /** Space-separated; a scope outside the Grant is `invalid_scope`, not a malformed request. */
  scope: NonEmptyString,
});
export type ClientCredentialsTokenRequest = z.infer<typeof ClientCredentialsTokenRequest>;

export const AuthorizationCodeTokenRequest = z.looseObject({
  grant_type: z.literal('authorization_code'),
  code: NonEmptyString,
  client_id: NonEmptyString,
  client_secret: NonEmptyString,
  redirect_uri: NonEmptyString,
  /** Extension (docs/interface-decisions.md#oauth-details): PKCE in this flow too. */
  code_verifier: NonEmptyString.optional(),
});
export type AuthorizationCodeTokenRequest = z.infer<typeof AuthorizationCodeTokenRequest>;

/** Body of `POST /oauth2/token`. */
export const TokenRequest = z.discriminatedUnion('grant_type', [
  ClientCredentialsTokenRequest,
  AuthorizationCodeTokenRequest,
]);
export type TokenRequest = z.infer<typeof TokenRequest>;

/** Body of `POST /oauth2/refresh`; the answer is one `TokenRecord`. */
export const RefreshRequest = z.looseObject({
  grant_type: z.literal('refresh_token'),
  refresh_token: NonEmptyString,
  client_id: NonEmptyString,
  client_secret: NonEmptyString,
});
export type RefreshRequest = z.infer<typeof RefreshRequest>;

/** Body of `POST /client-application/{id}/public-key`. */
export const ClientApplicationPublicKeyRequest = z.looseObject({
  /** Base64 of the DER SubjectPublicKeyInfo. */
  keyData: Base64,
  algorithm: KeyAlgorithm,
});
export type ClientApplicationPublicKeyRequest = z.infer<typeof ClientApplicationPublicKeyRequest>;

/** Answer of `GET /client-application/{id}/public-key` (and of the POST). */
export const ClientApplicationPublicKey = z.looseObject({
  keyData: NonEmptyString,
  algorithm: OpenEnum,
  uploadedAt: NonEmptyString,
});
export type ClientApplicationPublicKey = z.infer<typeof ClientApplicationPublicKey>;

/** Answer of `GET /credit-note/{serviceReceiptId}/issuer-key`. */
export const IssuerKey = z.looseObject({
  publicKey: NonEmptyString,
  algorithm: OpenEnum,
  /** Base64url SHA-256 of the DER SubjectPublicKeyInfo (docs/interface-decisions.md#key-fingerprints). */
  keyId: NonEmptyString,
});
export type IssuerKey = z.infer<typeof IssuerKey>;
