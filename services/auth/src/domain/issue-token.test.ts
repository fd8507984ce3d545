import { AppError } from '@platform/common';
import { createMemoryTokenStore, generateApiKey, hashSecret, type ActiveKey, type TokenStore } from '@platform/credentials';
import type { AttemptLimits } from './attempt-limits';
import { createTokenIssuer, KEY_BUSY, type IssuanceKeys } from './issue-token';

const NOW = 1_800_000_000_000;
const apiKey = generateApiKey();
const keyHash = hashSecret(apiKey);
const openLimits: AttemptLimits = {
  ensureAddressAllowed: () => Promise.resolve(),
  recordFailure: () => Promise.resolve(),
  countIssuance: () => Promise.resolve(),
};

/** Keys as the store would give them: `found` on the fast read, `locked` (null: no active key; or busy) on the slow one. */
function keysOf(found: ActiveKey | undefined, locked: ActiveKey | null | typeof KEY_BUSY | undefined = found) {
  const calls = { evicted: 0, locked: 0 };
  const keys: IssuanceKeys = {
    find: (hash) => Promise.resolve(hash === keyHash ? found : undefined),
    evict: () => {
      calls.evicted += 1;
    },
    async whileLocked(_hash, fn) {
      calls.locked += 1;
      return locked === KEY_BUSY ? KEY_BUSY : fn(locked ?? undefined);
    },
  };
  return { keys, calls };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error.code;
}

function issuerWith(keys: IssuanceKeys, tokens: TokenStore, limits: AttemptLimits = openLimits) {
  return createTokenIssuer({ keys, tokens, limits, now: () => NOW });
}

describe('token issuer', () => {
  test('when the key is active and has credits, then a token is minted under its generation with the lifetime asked for', async () => {
    const tokens = createMemoryTokenStore(() => NOW);
    const issuer = issuerWith(keysOf({ accountId: 7, generation: 3, hasCredits: true }).keys, tokens);
    const issued = await issuer.issue(await issuer.authenticate({ apiKey, clientId: undefined }), 7200);
    expect(issued).toEqual({ accessToken: expect.stringMatching(/^tk_/), expiresIn: 7200, accountId: 7 });
    expect(await tokens.lookup(hashSecret(issued.accessToken))).toEqual({
      accountId: 7,
      generation: 3,
      issuedAt: NOW / 1000,
      expiresAt: NOW / 1000 + 7200,
    });
  });

  test.each([
    ['the key is unknown', undefined, undefined],
    ['every pool is at 0', { accountId: 7, generation: 0, hasCredits: false }, undefined],
    ['the client id is another account', { accountId: 7, generation: 0, hasCredits: true }, '8'],
    ['the client id is not a number', { accountId: 7, generation: 0, hasCredits: true }, '7x'],
  ])('when %s, then authentication is refused', async (_name, found, clientId) => {
    const issuer = issuerWith(keysOf(found).keys, createMemoryTokenStore());
    expect(await refusal(issuer.authenticate({ apiKey, clientId }))).toBe('unauthenticated');
  });

  test('when the value is not shaped like a key, then it is refused without a lookup', async () => {
    const find = jest.fn();
    const issuer = issuerWith({ find, evict: jest.fn(), whileLocked: jest.fn() }, createMemoryTokenStore());
    expect(await refusal(issuer.authenticate({ apiKey: 'tk_notakey', clientId: undefined }))).toBe('unauthenticated');
    expect(find).not.toHaveBeenCalled();
  });

  test('when the account was rotated after the key was read, then the locked re-read finds the key inactive and issuance is refused', async () => {
    const tokens = createMemoryTokenStore();
    await tokens.bumpGeneration(7, 4);
    const { keys, calls } = keysOf({ accountId: 7, generation: 3, hasCredits: true }, null);
    const issuer = issuerWith(keys, tokens);
    const authenticated = await issuer.authenticate({ apiKey, clientId: undefined });
    expect(await refusal(issuer.issue(authenticated, 3600))).toBe('unauthenticated');
    expect(calls).toEqual({ evicted: 1, locked: 1 });
  });

  test('when a rotation holds the key rows, then issuance is refused', async () => {
    const tokens = createMemoryTokenStore();
    await tokens.bumpGeneration(7, 4);
    const issuer = issuerWith(keysOf({ accountId: 7, generation: 3, hasCredits: true }, KEY_BUSY).keys, tokens);
    expect(await refusal(issuer.issue(await issuer.authenticate({ apiKey, clientId: undefined }), 3600))).toBe('unauthenticated');
  });

  test('when Redis is ahead of Postgres after a rotation that did not commit, then the still-active key mints under the current generation', async () => {
    const tokens = createMemoryTokenStore(() => NOW);
    await tokens.bumpGeneration(7, 4);
    const active = { accountId: 7, generation: 3, hasCredits: true };
    const issuer = issuerWith(keysOf(active, active).keys, tokens);
    const issued = await issuer.issue(await issuer.authenticate({ apiKey, clientId: undefined }), 3600);
    expect((await tokens.lookup(hashSecret(issued.accessToken)))?.generation).toBe(4);
  });

  test('when the account is over its issuance limit, then the minted token is deleted and 429 is answered', async () => {
    const tokens = createMemoryTokenStore(() => NOW);
    const revoke = jest.spyOn(tokens, 'revoke');
    const limits = { ...openLimits, countIssuance: () => Promise.reject(new AppError('rate_limited', { retryAfterSeconds: 30 })) };
    const issuer = issuerWith(keysOf({ accountId: 7, generation: 0, hasCredits: true }).keys, tokens, limits);
    expect(await refusal(issuer.issue(await issuer.authenticate({ apiKey, clientId: undefined }), 3600))).toBe('rate_limited');
    expect(revoke).toHaveBeenCalledTimes(1);
  });

  test('when the address turns out to be over its failure limit, then 429 wins and no token survives', async () => {
    const tokens = createMemoryTokenStore(() => NOW);
    const revoke = jest.spyOn(tokens, 'revoke');
    const issuer = issuerWith(keysOf({ accountId: 7, generation: 0, hasCredits: true }).keys, tokens);
    const blocked = Promise.reject(new AppError('rate_limited', { retryAfterSeconds: 10 }));
    expect(await refusal(issuer.issue(await issuer.authenticate({ apiKey, clientId: undefined }), 3600, blocked))).toBe('rate_limited');
    expect(revoke).toHaveBeenCalledTimes(1);
  });
});
