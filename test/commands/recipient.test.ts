import { afterEach, describe, expect, it, vi } from 'vitest';
import { run as resolve } from '../../src/commands/recipient/resolve.js';
import { keyFingerprint } from '../../src/crypto/keys.js';
import { ApiError, ExitCode, NotFoundError, UsageError, ValidationError } from '../../src/errors.js';
import { ALICE, aliceMatch, apiError, closeHarnesses, harness, parseArgv } from './receipts-setup.js';

const tokenSourceFor = vi.hoisted(() =>
  vi.fn(async (_f: unknown, _want?: { scope?: string }) => ({ token: async () => 'tok-1', invalidate: async () => {} })),
);
vi.mock('../../src/auth/session.js', () => ({ tokenSourceFor }));

afterEach(async () => {
  tokenSourceFor.mockClear();
  await closeHarnesses();
});

describe('argv → options', () => {
  it('maps every identifier flag', async () => {
    expect(await parseArgv(['recipient', 'resolve', '--email', 'a@example.com'])).toEqual([{ email: 'a@example.com' }]);
    expect(await parseArgv(['recipient', 'resolve', '--card', '4111', '--receipt', 'sr-1'])).toEqual([{ card: '4111', receipt: 'sr-1' }]);
    expect(await parseArgv(['recipient', 'resolve', '--phone', '+1', '--iban', 'DE'])).toEqual([{ phone: '+1', iban: 'DE' }]);
  });
});

describe('recipient resolve', () => {
  it('sends the email with a write_receipts token and lists each recipient with its key fingerprint', async () => {
    const h = await harness();
    h.reply('/recipient/resolve', 200, aliceMatch());
    await resolve({ email: ' alice@example.com ' }, h.f);
    expect(h.sent[0]!.body).toEqual({ email: 'alice@example.com' });
    expect(h.sent[0]!.headers.authorization).toBe('Bearer tok-1');
    expect(tokenSourceFor).toHaveBeenCalledWith(h.f, { scope: 'write_receipts' });
    const lines = h.streams.stdout().trimEnd().split('\n');
    expect(lines.slice(0, 2)).toEqual(['matchId  match-alice-1', 'formats  SERVICE, UBL_CREDIT_NOTE']);
    expect(lines.slice(2)).toEqual(ALICE.devices.map((d) => [d.id, 'DEVICE', 'RSA_2048', keyFingerprint(d.publicKey)].join('\t')));
  });

  it('draws a table on a terminal', async () => {
    const h = await harness({ tty: true });
    h.reply('/recipient/resolve', 200, aliceMatch());
    await resolve({ phone: '+49 151 0000 0001' }, h.f);
    expect(h.sent[0]!.body).toEqual({ phone: '+4915100000001' });
    const out = h.streams.stdout();
    for (const header of ['RECIPIENT ID', 'TYPE', 'ALGORITHM', 'KEY ID']) expect(out).toContain(header);
    expect(out).toContain(keyFingerprint(ALICE.devices[2]!.publicKey));
  });

  it('prints the response as returned with --json, unknown members included', async () => {
    const h = await harness({ json: true });
    const match = { ...aliceMatch(), futureMember: { x: 1 } };
    h.reply('/recipient/resolve', 200, match);
    await resolve({ receipt: 'sr-1' }, h.f);
    expect(h.sent[0]!.body).toEqual({ serviceReceiptId: 'sr-1' });
    expect(JSON.parse(h.streams.stdout())).toEqual(match);
    expect(h.streams.stderr()).toBe('');
  });

  it('shows an unparseable key as such instead of failing', async () => {
    const h = await harness();
    const match = aliceMatch();
    match.recipients[0]!.publicKey = 'AAAA';
    match.recipients[0]!.keyAlgorithm = 'ML_KEM_768';
    h.reply('/recipient/resolve', 200, match);
    await resolve({ email: 'alice@example.com' }, h.f);
    expect(h.streams.stdout()).toContain(`${ALICE.devices[0]!.id}\tDEVICE\tML_KEM_768\t(not an RSA public key)`);
  });

  it('says so when the customer has no devices', async () => {
    const h = await harness();
    h.reply('/recipient/resolve', 200, { ...aliceMatch(), recipients: [] });
    await resolve({ email: 'alice@example.com' }, h.f);
    expect(h.streams.stderr()).toContain('no device');
  });

  describe('card numbers and IBANs', () => {
    it('sends the compact card number and never prints it in full, not even in the --debug trace', async () => {
      const h = await harness({ debug: true });
      h.reply('/recipient/resolve', 200, aliceMatch());
      await resolve({ card: '4111 1111-1111 1111' }, h.f);
      expect(h.sent[0]!.body).toEqual({ cardNumber: ALICE.cardNumber });
      expect(h.streams.stderr()).toContain('"cardNumber": "•••• 1111"');
      expect(h.output()).not.toContain(ALICE.cardNumber);
    });

    it.each([
      ['card', { card: ALICE.cardNumber }, ALICE.cardNumber],
      ['IBAN', { iban: 'de89 3704 0044 0532 0130 00' }, ALICE.iban],
    ])('404 for a %s is exit 6 without the value', async (kind, flags, value) => {
      const h = await harness();
      h.reply('/recipient/resolve', 404, apiError('not_found', `nothing for ${value}`));
      const error = await resolve(flags, h.f).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      expect((error as NotFoundError).exitCode).toBe(ExitCode.notFound);
      expect((error as NotFoundError).message).toBe(`no recipient matches that ${kind}`);
      const cause = (error as NotFoundError).cause as ApiError;
      expect(cause.message).not.toContain(value);
      expect(cause.message).toContain(`•••• ${value.slice(-4)}`);
    });

    it('404 for an email or phone names what was looked up', async () => {
      const h = await harness();
      h.reply('/recipient/resolve', 404, apiError('not_found', 'no recipient matches these details'));
      await expect(resolve({ phone: '+4915100000009' }, h.f)).rejects.toThrow('no recipient matches that phone');
    });

    it('404 for a receipt says the receipt was not found, not that the customer lacks a device', async () => {
      const h = await harness();
      h.reply('/recipient/resolve', 404, apiError('not_found', 'no recipient matches these details'));
      const error = (await resolve({ receipt: 'e0ba2a5x' }, h.f).catch((e: unknown) => e)) as NotFoundError;
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error.message).toBe('receipt e0ba2a5x not found: the service knows no receipt by that ID issued by this company');
      expect(`${error.message} ${error.hint}`).not.toContain('device');
    });

    it('404: the hint names the command that emails a PDF, with its own flag (--to), the address when it is one', async () => {
      const h = await harness();
      h.reply('/recipient/resolve', 404, apiError('not_found', 'no recipient matches these details'));
      const byEmail = (await resolve({ email: 'nobody@example.com' }, h.f).catch((e: unknown) => e)) as NotFoundError;
      expect(byEmail.hint).toContain('email the receipt as a PDF: `svc receipt email --file RECEIPT.json --to nobody@example.com`');
      h.reply('/recipient/resolve', 404, apiError('not_found', 'no recipient matches these details'));
      const byCard = (await resolve({ card: ALICE.cardNumber }, h.f).catch((e: unknown) => e)) as NotFoundError;
      expect(byCard.hint).toContain('`svc receipt email --file RECEIPT.json --to ADDRESS`');
      expect(byCard.hint).not.toContain(ALICE.cardNumber.slice(-4));
    });

    it('masks a number the service quotes back in another error', async () => {
      const h = await harness();
      h.reply('/recipient/resolve', 400, {
        ...apiError('validation_failed', `card ${ALICE.cardNumber} is blocked`),
        details: [{ path: 'cardNumber', message: `${ALICE.cardNumber} is blocked` }],
      });
      const error = await resolve({ card: ALICE.cardNumber }, h.f).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).exitCode).toBe(ExitCode.usage);
      expect((error as ApiError).message).not.toContain(ALICE.cardNumber);
      expect((error as ApiError).details[0]!.message).toBe('•••• 1111 is blocked');
    });
  });

  describe('refused before anything is sent', () => {
    it.each([
      [{}, 'give one of --email, --phone, --iban, --card, --receipt'],
      [{ email: 'alice@example.com', card: ALICE.cardNumber }, 'give only one of --email, --phone, --iban, --card, --receipt'],
    ])('needs exactly one identifier: %j', async (flags, message) => {
      const h = await harness();
      const error = await resolve(flags, h.f).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toBe(message);
      expect(tokenSourceFor).not.toHaveBeenCalled();
    });

    it.each([
      [{ card: '4111 1111 1111 111x' }, '--card', 'cardNumber: must be a card number of 12 to 19 digits (spaces and dashes are fine)'],
      [{ iban: 'DE89-3704-0044-0532-0130-00' }, '--iban', 'iban: must be an IBAN, such as DE89 3704 0044 0532 0130 00 (spaces and lower case are fine)'],
    ])('says what %j accepts, not the compact form it sends', async (flags, flag, line) => {
      const h = await harness();
      const error = await resolve(flags, h.f).catch((e: unknown) => e);
      expect((error as ValidationError).message).toBe(`${flag} is invalid:\n  ${line}`);
    });

    it.each([
      [{ card: '4111 1111 1111 111x' }, '--card', 'cardNumber', '4111 1111 1111 111x'],
      [{ iban: 'DE89-3704-0044-0532-0130-00' }, '--iban', 'iban', 'DE89-3704'],
      [{ email: 'alice at example.com' }, '--email', 'email', 'alice at'],
      [{ phone: '0151 000' }, '--phone', 'phone', '0151'],
    ])('validates %j without echoing it', async (flags, flag, path, value) => {
      const h = await harness();
      const error = await resolve(flags, h.f).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).exitCode).toBe(ExitCode.usage);
      expect((error as ValidationError).message).toMatch(new RegExp(`^${flag} is invalid`));
      expect((error as ValidationError).issues.map((i) => i.path)).toEqual([path]);
      expect((error as ValidationError).message).not.toContain(value);
      expect(h.sent).toEqual([]);
    });
  });
});
