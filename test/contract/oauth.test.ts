import { describe, expect, it } from 'vitest';
import {
  AccessTokenResponse,
  AuthorizationCodeExchangeRequest,
  AuthorizationCodeExchangeResponse,
  ClientApplicationPublicKey,
  ClientApplicationPublicKeyRequest,
  Grant,
  GrantDetails,
  IssuerKey,
  RefreshRequest,
  SCOPES,
  Scope,
  StoreAccessMode,
  TokenRecords,
  TokenRequest,
} from '../../src/contract/oauth.js';
import { expectIssue, expectValid } from './issues.js';

const grant = {
  grant_id: '3f8e2c1a-1b2c-4d5e-8f90-123456789abc',
  grant_version: 1,
  issuer_company_id: 'c0ffee00-1b2c-4d5e-8f90-123456789abc',
  company_legal_name: 'Shop GmbH',
  tax_id: 'DE123456789',
  scopes: ['write_receipts', 'read_stores'],
  store_ids: [],
  store_access_mode: 'ALL_STORES',
};

const tokenRecord = {
  access_token: 'at',
  refresh_token: 'rt',
  token_type: 'AUTHORIZATION_CODE',
  expires_at: '2024-05-01T13:00:00Z',
  refresh_expires_at: '2024-05-31T12:00:00Z',
  merchant_id: 'c0ffee00-1b2c-4d5e-8f90-123456789abc',
  tax_id: 'DE123456789',
  company_legal_name: 'Shop GmbH',
  customer_id: null,
};

describe('scopes and store access', () => {
  it('lists the eight scopes of the interface', () => {
    expect(SCOPES).toHaveLength(8);
    expect(Scope.safeParse('read_stores').success).toBe(true);
    expect(Scope.safeParse('read_everything').success).toBe(false);
  });

  it('StoreAccessMode is strict, Grant tolerates a mode the service adds later', () => {
    expect(StoreAccessMode.safeParse('SELECTED_STORES').success).toBe(true);
    expect(StoreAccessMode.safeParse('REGION_STORES').success).toBe(false);
    expectValid(Grant, { ...grant, store_access_mode: 'REGION_STORES', scopes: ['future_scope'] });
  });
});

describe('Grant and GrantDetails', () => {
  it('parses a Grant and keeps unknown members', () => {
    expect(Grant.parse({ ...grant, revoked: false })).toMatchObject({ revoked: false });
  });

  it('requires an integer grant_version', () => {
    expectIssue(Grant, { ...grant, grant_version: 1.5 }, 'grant_version', 'must be a whole number');
    expectIssue(Grant, { ...grant, grant_version: '1' }, 'grant_version');
  });

  it('parses the consent response', () => {
    expectValid(AuthorizationCodeExchangeResponse, { grants: [grant, { ...grant, store_access_mode: 'SELECTED_STORES', store_ids: ['s1'] }] });
    expectIssue(AuthorizationCodeExchangeResponse, { grants: [{ ...grant, grant_id: undefined }] }, 'grants.0.grant_id', 'is required');
  });

  it('parses Grant details with stores', () => {
    const details = {
      grant_id: grant.grant_id,
      grant_version: 2,
      company: { id: grant.issuer_company_id, companyLegalName: 'Shop GmbH' },
      stores: [{ id: 's1', storeName: 'Main St', storeCode: 'MS', isActive: true, address: { city: 'Berlin' } }],
      scopes: ['read_stores'],
      store_access_mode: 'SELECTED_STORES',
    };
    expect(GrantDetails.parse(details).stores[0]).toMatchObject({ address: { city: 'Berlin' } });
    expectIssue(GrantDetails, { ...details, stores: [{ id: 's1', storeName: 'x', storeCode: 'y', isActive: 'yes' }] }, 'stores.0.isActive');
  });
});

describe('token responses', () => {
  it('parses the client_credentials answer', () => {
    expectValid(AccessTokenResponse, { access_token: 'at', token_type: 'bearer', expires_in: 900, scope: 'write_receipts' });
    expectIssue(AccessTokenResponse, { access_token: 'at', token_type: 'bearer', expires_in: 0, scope: '' }, 'expires_in');
  });

  it('parses token records, with or without a customer', () => {
    expectValid(TokenRecords, [tokenRecord, { ...tokenRecord, customer_id: '0d0e0f00-1b2c-4d5e-8f90-123456789abc' }]);
    expectIssue(TokenRecords, [{ ...tokenRecord, refresh_token: undefined }], '0.refresh_token', 'is required');
  });
});

describe('TokenRequest', () => {
  const clientCredentials = {
    grant_type: 'client_credentials',
    client_id: 'cid',
    client_secret: 'secret',
    grant_id: grant.grant_id,
    scope: 'write_receipts',
  };
  const authorizationCode = {
    grant_type: 'authorization_code',
    code: 'abc',
    client_id: 'cid',
    client_secret: 'secret',
    redirect_uri: 'http://127.0.0.1:53682/callback',
  };

  it('accepts both variants, and code_verifier in the code variant', () => {
    expect(TokenRequest.parse(clientCredentials).grant_type).toBe('client_credentials');
    expectValid(TokenRequest, authorizationCode);
    expectValid(TokenRequest, { ...authorizationCode, code_verifier: 'v'.repeat(43) });
  });

  it.each(['client_id', 'client_secret', 'grant_id', 'scope'])('client_credentials requires %s', (member) => {
    expectIssue(TokenRequest, { ...clientCredentials, [member]: undefined }, member, 'is required');
  });

  it.each(['code', 'client_id', 'client_secret', 'redirect_uri'])('authorization_code requires %s', (member) => {
    expectIssue(TokenRequest, { ...authorizationCode, [member]: undefined }, member, 'is required');
  });

  it('names the grant types it knows', () => {
    expectIssue(TokenRequest, { ...clientCredentials, grant_type: 'password' }, 'grant_type', 'must be one of "client_credentials", "authorization_code"');
    expectIssue(TokenRequest, { client_id: 'cid' }, 'grant_type', 'is required');
  });
});

describe('code exchange and refresh requests', () => {
  it('the exchange requires code_verifier', () => {
    const exchange = { code: 'abc', client_id: 'cid', client_secret: 'secret', code_verifier: 'v'.repeat(43) };
    expectValid(AuthorizationCodeExchangeRequest, exchange);
    expectIssue(AuthorizationCodeExchangeRequest, { ...exchange, code_verifier: undefined }, 'code_verifier', 'is required');
  });

  it('refresh needs grant_type refresh_token', () => {
    const refresh = { grant_type: 'refresh_token', refresh_token: 'rt', client_id: 'cid', client_secret: 'secret' };
    expectValid(RefreshRequest, refresh);
    expectIssue(RefreshRequest, { ...refresh, grant_type: 'authorization_code' }, 'grant_type', 'must be "refresh_token"');
    expectIssue(RefreshRequest, { ...refresh, refresh_token: '' }, 'refresh_token', 'must not be empty');
  });
});

describe('client application and issuer keys', () => {
  it('uploads take Base64 key data and RSA_2048', () => {
    expectValid(ClientApplicationPublicKeyRequest, { keyData: 'MIIBIjAN', algorithm: 'RSA_2048' });
    expectIssue(ClientApplicationPublicKeyRequest, { keyData: '-----BEGIN', algorithm: 'RSA_2048' }, 'keyData', 'Base64');
    expectIssue(ClientApplicationPublicKeyRequest, { keyData: 'MIIBIjAN', algorithm: 'EC_P256' }, 'algorithm', 'must be "RSA_2048"');
  });

  it('answers tolerate other algorithms', () => {
    expectValid(ClientApplicationPublicKey, { keyData: 'MIIBIjAN', algorithm: 'EC_P256', uploadedAt: '2024-05-01T12:00:00Z' });
    expectIssue(ClientApplicationPublicKey, { keyData: 'MIIBIjAN', algorithm: 'RSA_2048' }, 'uploadedAt', 'is required');
    expectValid(IssuerKey, { publicKey: 'MIIBIjAN', algorithm: 'RSA_2048', keyId: 'abc_-' });
    expectIssue(IssuerKey, { publicKey: 'MIIBIjAN', algorithm: 'RSA_2048' }, 'keyId', 'is required');
  });
});
