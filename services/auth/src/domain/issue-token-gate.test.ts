import { AppError } from '@platform/common';
import { createMemoryTokenStore, generateApiKey, hashSecret, type ActiveKey, type MintRequest } from '@platform/credentials';
import type { AttemptLimits } from './attempt-limits';
import { createTokenIssuer, type AddressGuard, type IssuanceGate, type IssuanceGateOutcome, type IssuanceKeys } from './issue-token';

// Issuance through the one-round-trip gate (Redis deployments): the same answers as the separate
// address check, count and mint, and the address check settled from the gate's own reading.

const NOW = 1_800_000_000_000;
const apiKey = generateApiKey();
const keyHash = hashSecret(apiKey);
const active: ActiveKey = { accountId: 7, generation: 3, hasCredits: true };

function keys(locked: ActiveKey | undefined = active): IssuanceKeys & { locked: number } {
  const result = {
    locked: 0,
    find: (hash: string) => Promise.resolve(hash === keyHash ? active : undefined),
    evict: () => undefined,
    async whileLocked<T>(_hash: string, fn: (key: ActiveKey | undefined) => Promise<T>): Promise<T> {
      result.locked += 1;
      return fn(locked);
    },
  };
  return result;
}

/** Limits that must not be asked: the gate does their work. */
const unusedLimits: AttemptLimits = {
  ensureAddressAllowed: () => Promise.reject(new Error('address checked separately')),
  recordFailure: () => Promise.reject(new Error('failure recorded by the issuer')),
  countIssuance: () => Promise.reject(new Error('issuance counted separately')),
};

function gateAnswering(outcome: IssuanceGateOutcome): IssuanceGate & { calls: Array<{ address: string; request: MintRequest }> } {
  const calls: Array<{ address: string; request: MintRequest }> = [];
  return {
    calls,
    countAndMint(address, request) {
      calls.push({ address, request });
      return Promise.resolve(outcome);
    },
  };
}

function guardFor(address: string): AddressGuard & { outcome(): Promise<void> | undefined } {
  let settled: Promise<void> | undefined;
  return {
    address,
    get allowed(): Promise<void> {
      return settled ?? Promise.reject(new Error('address check started although the gate made it'));
    },
    settle(outcome) {
      outcome.catch(() => undefined);
      settled = outcome;
    },
    outcome: () => settled,
  };
}

async function codeOf(promise: Promise<unknown>): Promise<{ code: string; retryAfterSeconds?: number }> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return { code: error.code, ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}) };
}

describe('token issuer with the issuance gate', () => {
  test('when the gate mints, then the token is returned and the address check is settled as passed', async () => {
    const gate = gateAnswering({ outcome: 'minted', generation: 3 });
    const issuer = createTokenIssuer({ keys: keys(), tokens: createMemoryTokenStore(), limits: unusedLimits, gate, now: () => NOW });
    expect(issuer.checksAddress).toBe(true);
    const guard = guardFor('10.0.0.1');
    const issued = await issuer.issue(await issuer.authenticate({ apiKey, clientId: undefined }), 7200, guard);
    expect(issued).toEqual({ accessToken: expect.stringMatching(/^tk_/) as unknown, expiresIn: 7200, accountId: 7 });
    expect(gate.calls).toEqual([
      {
        address: '10.0.0.1',
        request: { tokenHash: hashSecret(issued.accessToken), accountId: 7, expectedGeneration: 3, issuedAt: NOW / 1000, ttlSeconds: 7200 },
      },
    ]);
    await expect(guard.outcome()).resolves.toBeUndefined();
  });

  test('when the address is over its failure limit, then 429 with its retry time, and the address check is settled as refused', async () => {
    const issuer = createTokenIssuer({
      keys: keys(),
      tokens: createMemoryTokenStore(),
      limits: unusedLimits,
      gate: gateAnswering({ outcome: 'address_limited', msBeforeNext: 12_300 }),
      now: () => NOW,
    });
    const guard = guardFor('10.0.0.1');
    expect(await codeOf(issuer.issue(await issuer.authenticate({ apiKey, clientId: undefined }), 3600, guard))).toEqual({
      code: 'rate_limited',
      retryAfterSeconds: 13,
    });
    expect(await codeOf(guard.outcome() as Promise<void>)).toEqual({ code: 'rate_limited', retryAfterSeconds: 13 });
  });

  test('when the account is over its limit, then 429 with the window left, and the address check is settled as passed', async () => {
    const issuer = createTokenIssuer({
      keys: keys(),
      tokens: createMemoryTokenStore(),
      limits: unusedLimits,
      gate: gateAnswering({ outcome: 'account_limited', msBeforeNext: 400 }),
      now: () => NOW,
    });
    const guard = guardFor('10.0.0.1');
    expect(await codeOf(issuer.issue(await issuer.authenticate({ apiKey, clientId: undefined }), 3600, guard))).toEqual({
      code: 'rate_limited',
      retryAfterSeconds: 1,
    });
    await expect(guard.outcome()).resolves.toBeUndefined();
  });

  test('when the gate refuses the generation and the key is still active, then it mints under the store’s current generation', async () => {
    const tokens = createMemoryTokenStore(() => NOW);
    await tokens.bumpGeneration(7, 4);
    const keyReads = keys();
    const issuer = createTokenIssuer({
      keys: keyReads,
      tokens,
      limits: unusedLimits,
      gate: gateAnswering({ outcome: 'refused' }),
      now: () => NOW,
    });
    const issued = await issuer.issue(await issuer.authenticate({ apiKey, clientId: undefined }), 3600, guardFor('10.0.0.1'));
    expect(keyReads.locked).toBe(1);
    expect((await tokens.lookup(hashSecret(issued.accessToken)))?.generation).toBe(4);
  });

  test('when the gate refuses the generation and the key is gone, then 401', async () => {
    const issuer = createTokenIssuer({
      keys: { ...keys(), whileLocked: (_hash, fn) => fn(undefined) },
      tokens: createMemoryTokenStore(),
      limits: unusedLimits,
      gate: gateAnswering({ outcome: 'refused' }),
      now: () => NOW,
    });
    expect(await codeOf(issuer.issue(await issuer.authenticate({ apiKey, clientId: undefined }), 3600, guardFor('10.0.0.1')))).toEqual({
      code: 'unauthenticated',
    });
  });

  test('when the caller hands a promise instead of an address, then the separate calls are made', async () => {
    const gate = gateAnswering({ outcome: 'minted', generation: 3 });
    const counted: number[] = [];
    const limits: AttemptLimits = {
      ensureAddressAllowed: () => Promise.resolve(),
      recordFailure: () => Promise.resolve(),
      countIssuance: (accountId) => {
        counted.push(accountId);
        return Promise.resolve();
      },
    };
    const tokens = createMemoryTokenStore(() => NOW);
    const issuer = createTokenIssuer({ keys: keys(), tokens, limits, gate, now: () => NOW });
    const issued = await issuer.issue(await issuer.authenticate({ apiKey, clientId: undefined }), 3600, Promise.resolve());
    expect(gate.calls).toEqual([]);
    expect(counted).toEqual([7]);
    expect((await tokens.lookup(hashSecret(issued.accessToken)))?.generation).toBe(3);
  });

  test('without a gate, the caller must check the address itself', () => {
    const issuer = createTokenIssuer({ keys: keys(), tokens: createMemoryTokenStore(), limits: unusedLimits, now: () => NOW });
    expect(issuer.checksAddress).toBe(false);
  });
});
