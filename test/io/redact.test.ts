import { describe, it, expect } from 'vitest';
import { maskLast4, REDACTED, redactHeaders, redactJson, redactUrl } from '../../src/io/redact.js';

describe('maskLast4', () => {
  it('keeps only the last 4 characters of a card number or IBAN, ignoring spaces', () => {
    expect(maskLast4('4111 1111 1111 1234')).toBe('•••• 1234');
    expect(maskLast4('4111-1111-1111-9876')).toBe('•••• 9876');
    expect(maskLast4('DE89 3704 0044 0532 0130 00')).toBe('•••• 3000');
  });

  it('hides the length, and masks short values entirely', () => {
    expect(maskLast4('41111111111111111234')).toBe('•••• 1234');
    expect(maskLast4('1234')).toBe('••••');
    expect(maskLast4('')).toBe('••••');
  });
});

describe('redactJson', () => {
  it('replaces secrets at any depth and inside arrays, whatever the key case', () => {
    const input = {
      grant_type: 'client_credentials',
      Client_Secret: 'cs-1',
      nested: [{ ACCESS_TOKEN: 'at-1' }, { deeper: { refreshToken: 'rt-1', password: 'pw-1' } }],
      tokens: [[{ token: 't-1' }]],
      code: 'c-1',
      'code-verifier': 'cv-1',
      privateKey: 'pk-1',
      private_key: 'pk-2',
      apiKey: 'ak-1',
      API_KEY: 'ak-2',
      secret: 'whsec_1',
      webhookSecret: 'whsec_2',
    };
    expect(redactJson(input)).toEqual({
      grant_type: 'client_credentials',
      Client_Secret: REDACTED,
      nested: [{ ACCESS_TOKEN: REDACTED }, { deeper: { refreshToken: REDACTED, password: REDACTED } }],
      tokens: [[{ token: REDACTED }]],
      code: REDACTED,
      'code-verifier': REDACTED,
      privateKey: REDACTED,
      private_key: REDACTED,
      apiKey: REDACTED,
      API_KEY: REDACTED,
      secret: REDACTED,
      webhookSecret: REDACTED,
    });
  });

  it('keeps ordinary data that merely looks like a secret name', () => {
    const input = {
      reasonCode: 'DAMAGED',
      unitCode: 'C62',
      token_type: 'Bearer',
      expires_in: 3600,
      encryptedCustomerDetails: 'QUJD',
      encryptedSymmetricKey: 'REVG',
      publicKey: 'MIIB',
      refresh_token: null,
      client_secret: '',
    };
    expect(redactJson(input)).toEqual(input);
  });

  it('masks IBANs and card numbers to their last 4 characters', () => {
    expect(
      redactJson({
        iban: 'DE89 3704 0044 0532 0130 00',
        recipient: { CardNumber: '4111111111111234', customerIban: 'GB33BUKB20201555555555' },
        cards: [{ cardNumber: 4111111111119876 }],
        ibans: ['x'],
        iBan: ['NL91ABNA0417164300', 'FR1420041010050500013M02606'],
      }),
    ).toEqual({
      iban: '•••• 3000',
      recipient: { CardNumber: '•••• 1234', customerIban: '•••• 5555' },
      cards: [{ cardNumber: '•••• 9876' }],
      ibans: ['x'],
      iBan: ['•••• 4300', '•••• 2606'],
    });
  });

  it('does not modify its input', () => {
    const input = { a: { access_token: 'at' } };
    redactJson(input);
    expect(input.a.access_token).toBe('at');
  });

  it('passes scalars through and never throws', () => {
    expect(redactJson('token')).toBe('token');
    expect(redactJson(42)).toBe(42);
    expect(redactJson(null)).toBeNull();
    expect(redactJson(undefined)).toBeUndefined();
    expect(redactJson(new Date(0))).toBe('1970-01-01T00:00:00.000Z');

    const cyclic: Record<string, unknown> = { password: 'pw' };
    cyclic.self = cyclic;
    expect(redactJson(cyclic)).toEqual({ password: REDACTED, self: '[circular]' });

    const shared = { token: 't' };
    expect(redactJson({ a: shared, b: shared })).toEqual({ a: { token: REDACTED }, b: { token: REDACTED } });

    const hostile = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    });
    expect(redactJson(hostile)).toBe(REDACTED);

    let deep: unknown = { token: 'deep-secret' };
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(JSON.stringify(redactJson(deep))).not.toContain('deep-secret');
  });

  it('does not let a "__proto__" member of parsed JSON change the prototype', () => {
    const out = redactJson(JSON.parse('{"__proto__": {"token": "t"}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"token":"[redacted]"}}');
  });
});

describe('redactHeaders', () => {
  it('hides credentials, whatever the header case, and keeps the rest', () => {
    expect(
      redactHeaders({
        Authorization: 'Bearer tok-1',
        'proxy-authorization': 'Basic dXNlcjpwYXNz',
        cookie: 'sid=abc',
        'Set-Cookie': ['a=1', 'b=2'],
        'X-API-Key': 'key-1',
        'x-service-signature': 't=1,v1=ff',
        'Idempotency-Key': 'idem-1',
        'content-length': 12,
        'x-absent': undefined,
      }),
    ).toEqual({
      Authorization: `Bearer ${REDACTED}`,
      'proxy-authorization': `Basic ${REDACTED}`,
      cookie: REDACTED,
      'Set-Cookie': [REDACTED, REDACTED],
      'X-API-Key': REDACTED,
      'x-service-signature': REDACTED,
      'Idempotency-Key': 'idem-1',
      'content-length': '12',
    });
  });

  it('hides an Authorization value that has no scheme entirely', () => {
    expect(redactHeaders({ authorization: 'rawtoken' })).toEqual({ authorization: REDACTED });
  });

  it("redacts the OAuth parameters of a URL a header carries (a redirect's Location with the code)", () => {
    expect(
      redactHeaders({
        location: 'http://127.0.0.1:8765/callback?code=vLPRcode&state=G3ypstate',
        'Content-Location': '/x?access_token=at&page=2',
        referer: 'https://h/cb#id_token=it',
        refresh: '0; url=/cb?code=c1',
        link: '</credit-note?after=abc>; rel="next"',
      }),
    ).toEqual({
      location: `http://127.0.0.1:8765/callback?code=${REDACTED}&state=${REDACTED}`,
      'Content-Location': `/x?access_token=${REDACTED}&page=2`,
      referer: `https://h/cb#id_token=${REDACTED}`,
      refresh: `0; url=/cb?code=${REDACTED}`,
      link: '</credit-note?after=abc>; rel="next"',
    });
  });
});

describe('redactUrl', () => {
  it('replaces OAuth parameters and keeps the rest byte for byte', () => {
    expect(
      redactUrl('http://127.0.0.1:9999/callback?code=abc123&state=st4te&scope=a%20b&code_verifier=v&token=t&client_id=app'),
    ).toBe(
      `http://127.0.0.1:9999/callback?code=${REDACTED}&state=${REDACTED}&scope=a%20b&code_verifier=${REDACTED}&token=${REDACTED}&client_id=app`,
    );
  });

  it('handles fragments, encoded names, userinfo passwords and masked identifiers', () => {
    expect(redactUrl('https://h/cb#access_token=at&token_type=Bearer')).toBe(
      `https://h/cb#access_token=${REDACTED}&token_type=Bearer`,
    );
    expect(redactUrl('https://h/x?Code%5Fverifier=v&flag')).toBe(`https://h/x?Code%5Fverifier=${REDACTED}&flag`);
    expect(redactUrl('https://user:pa55@h/x')).toBe(`https://user:${REDACTED}@h/x`);
    expect(redactUrl('https://user@h/x')).toBe('https://user@h/x');
    expect(redactUrl('/recipient?iban=DE89370400440532013000')).toBe('/recipient?iban=•••• 3000');
  });

  it('leaves URLs without secrets alone and never throws on junk', () => {
    expect(redactUrl('http://127.0.0.1:8787/credit-note?status=PENDING')).toBe(
      'http://127.0.0.1:8787/credit-note?status=PENDING',
    );
    expect(redactUrl('not a url ?code=%E0%A4%A')).toBe(`not a url ?code=${REDACTED}`);
    expect(redactUrl('')).toBe('');
  });
});
