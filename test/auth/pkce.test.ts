import { describe, expect, it } from 'vitest';
import { codeChallenge, createCodeVerifier, createPkce } from '../../src/auth/pkce.js';
import { createState } from '../../src/auth/state.js';

describe('PKCE', () => {
  it('derives the RFC 7636 Appendix B challenge', () => {
    expect(codeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('generates verifiers of at least 43 unreserved characters, each one new', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const verifier = createCodeVerifier();
      expect(verifier.length).toBeGreaterThanOrEqual(43);
      expect(verifier.length).toBeLessThanOrEqual(128);
      expect(verifier).toMatch(/^[A-Za-z0-9\-._~]+$/);
      seen.add(verifier);
    }
    expect(seen.size).toBe(100);
  });

  it('pairs a verifier with its S256 challenge', () => {
    const pkce = createPkce();
    expect(pkce.method).toBe('S256');
    expect(pkce.challenge).toBe(codeChallenge(pkce.verifier));
    expect(pkce.challenge).not.toContain('=');
  });
});

describe('state', () => {
  it('is random and unguessable', () => {
    const a = createState();
    const b = createState();
    expect(a.value).not.toBe(b.value);
    expect(a.value.length).toBeGreaterThanOrEqual(43);
  });

  it('is accepted once only', () => {
    const state = createState();
    expect(state.matches(state.value)).toBe(true);
    expect(state.consume(state.value)).toBe(true);
    expect(state.matches(state.value)).toBe(false);
    expect(state.consume(state.value)).toBe(false);
  });

  it('refuses a wrong or missing value without being used up', () => {
    const state = createState();
    expect(state.consume(`${state.value}x`)).toBe(false);
    expect(state.consume(state.value.slice(1))).toBe(false);
    expect(state.consume('')).toBe(false);
    expect(state.consume(null)).toBe(false);
    expect(state.consume(undefined)).toBe(false);
    expect(state.consume(state.value)).toBe(true);
  });
});
