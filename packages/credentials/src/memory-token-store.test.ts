import { createMemoryTokenStore } from './memory-token-store';
import { hashSecret } from './secrets';
import { generateAccessToken } from './token-format';
import type { MintRequest, TokenStore } from './token-store';

const opened: TokenStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

/** A store on a clock the test moves; closed after each test. */
function aStore(): { store: TokenStore; advance(ms: number): void; nowSeconds(): number } {
  let nowMs = 1_700_000_000_000;
  const store = createMemoryTokenStore(() => nowMs);
  opened.push(store);
  return {
    store,
    advance: (ms) => {
      nowMs += ms;
    },
    nowSeconds: () => Math.floor(nowMs / 1000),
  };
}

let nextAccount = 1000;
/** A mint request for a fresh token of a fresh account (unless one is given). */
function aMint(overrides: Partial<MintRequest> = {}): MintRequest {
  nextAccount += 1;
  return {
    tokenHash: hashSecret(generateAccessToken()),
    accountId: nextAccount,
    expectedGeneration: 0,
    issuedAt: 1_700_000_000,
    ttlSeconds: 3600,
    ...overrides,
  };
}

describe('memory token store', () => {
  it('when a token is minted, then lookup returns its record under the current generation', async () => {
    const { store } = aStore();
    const mint = aMint({ expectedGeneration: 3 });
    await expect(store.mint(mint)).resolves.toBe(3);
    await expect(store.lookup(mint.tokenHash)).resolves.toEqual({
      accountId: mint.accountId,
      generation: 3,
      issuedAt: mint.issuedAt,
      expiresAt: mint.issuedAt + 3600,
    });
    await expect(store.currentGeneration(mint.accountId)).resolves.toBe(3);
  });

  it('when a hash was never minted, then lookup finds nothing', async () => {
    const { store } = aStore();
    await expect(store.lookup(hashSecret(generateAccessToken()))).resolves.toBeUndefined();
  });

  it('when the token lifetime has passed, then lookup finds nothing', async () => {
    const { store, advance } = aStore();
    const mint = aMint({ ttlSeconds: 1800 });
    await store.mint(mint);
    advance(1800 * 1000 - 1);
    await expect(store.lookup(mint.tokenHash)).resolves.toBeDefined();
    advance(1);
    await expect(store.lookup(mint.tokenHash)).resolves.toBeUndefined();
  });

  it('when a token is revoked, then lookup finds nothing and other tokens of the account still work', async () => {
    const { store } = aStore();
    const first = aMint();
    const second = aMint({ accountId: first.accountId });
    await store.mint(first);
    await store.mint(second);
    await store.revoke(first.tokenHash);
    await expect(store.lookup(first.tokenHash)).resolves.toBeUndefined();
    await expect(store.lookup(second.tokenHash)).resolves.toMatchObject({ accountId: first.accountId });
  });

  it('when revoking a token that does not exist, then nothing fails', async () => {
    const { store } = aStore();
    await expect(store.revoke(hashSecret('nothing'))).resolves.toBeUndefined();
  });

  it('when the generation is bumped, then every earlier token of the account is refused', async () => {
    const { store } = aStore();
    const first = aMint({ expectedGeneration: 1 });
    const second = aMint({ accountId: first.accountId, expectedGeneration: 1 });
    await store.mint(first);
    await store.mint(second);
    await expect(store.bumpGeneration(first.accountId, 0)).resolves.toBe(2);
    await expect(store.lookup(first.tokenHash)).resolves.toBeUndefined();
    await expect(store.lookup(second.tokenHash)).resolves.toBeUndefined();
  });

  it('when the generation is bumped, then tokens of other accounts are untouched', async () => {
    const { store } = aStore();
    const mine = aMint();
    const theirs = aMint();
    await store.mint(mine);
    await store.mint(theirs);
    await store.bumpGeneration(mine.accountId, 0);
    await expect(store.lookup(theirs.tokenHash)).resolves.toMatchObject({ accountId: theirs.accountId });
  });

  it('when bumping, then the new generation is max(current + 1, atLeast)', async () => {
    const { store } = aStore();
    const accountId = aMint().accountId;
    await expect(store.bumpGeneration(accountId, 0)).resolves.toBe(1);
    await expect(store.bumpGeneration(accountId, 0)).resolves.toBe(2);
    await expect(store.bumpGeneration(accountId, 10)).resolves.toBe(10);
    await expect(store.bumpGeneration(accountId, 5)).resolves.toBe(11);
    await expect(store.currentGeneration(accountId)).resolves.toBe(11);
  });

  it('when the generation moved past the expected one, then mint is refused and nothing is stored', async () => {
    const { store } = aStore();
    const stale = aMint({ expectedGeneration: 0 });
    await store.bumpGeneration(stale.accountId, 0);
    await expect(store.mint(stale)).resolves.toBeUndefined();
    await expect(store.lookup(stale.tokenHash)).resolves.toBeUndefined();
  });

  it('when a token is minted after the rotation with the new generation, then it works', async () => {
    const { store } = aStore();
    const old = aMint({ expectedGeneration: 0 });
    await store.mint(old);
    const generation = await store.bumpGeneration(old.accountId, 0);
    const fresh = aMint({ accountId: old.accountId, expectedGeneration: generation });
    await expect(store.mint(fresh)).resolves.toBe(generation);
    await expect(store.lookup(fresh.tokenHash)).resolves.toMatchObject({ generation });
    await expect(store.lookup(old.tokenHash)).resolves.toBeUndefined();
  });

  it('when the store knows a lower generation than the caller (it lost it), then mint raises it to the expected one', async () => {
    const { store } = aStore();
    const mint = aMint({ expectedGeneration: 5 });
    await expect(store.currentGeneration(mint.accountId)).resolves.toBeUndefined();
    await expect(store.mint(mint)).resolves.toBe(5);
    await expect(store.currentGeneration(mint.accountId)).resolves.toBe(5);
  });

  it('when a later mint raises the generation, then tokens of the lower generation are refused (never too little revoked)', async () => {
    const { store } = aStore();
    const low = aMint({ expectedGeneration: 1 });
    await store.mint(low);
    await store.mint(aMint({ accountId: low.accountId, expectedGeneration: 2 }));
    await expect(store.lookup(low.tokenHash)).resolves.toBeUndefined();
  });

  it('when the clock passes expiry for one token only, then the others stay', async () => {
    const { store, advance } = aStore();
    const short = aMint({ ttlSeconds: 1800 });
    const long = aMint({ accountId: short.accountId, ttlSeconds: 10800 });
    await store.mint(short);
    await store.mint(long);
    advance(3600 * 1000);
    await expect(store.lookup(short.tokenHash)).resolves.toBeUndefined();
    await expect(store.lookup(long.tokenHash)).resolves.toBeDefined();
  });

  it('when the same hash is minted again, then the latest record wins', async () => {
    const { store } = aStore();
    const mint = aMint({ ttlSeconds: 1800 });
    await store.mint(mint);
    await store.mint({ ...mint, ttlSeconds: 7200 });
    await expect(store.lookup(mint.tokenHash)).resolves.toMatchObject({ expiresAt: mint.issuedAt + 7200 });
  });

  it('stores only what it is given: the hash, never the token', async () => {
    const { store } = aStore();
    const token = generateAccessToken();
    await store.mint(aMint({ tokenHash: hashSecret(token) }));
    await expect(store.lookup(token)).resolves.toBeUndefined();
  });

  it('answers ping and closes cleanly (twice is harmless)', async () => {
    const store = createMemoryTokenStore();
    await expect(store.ping()).resolves.toBeUndefined();
    await expect(store.close()).resolves.toBeUndefined();
    await expect(store.close()).resolves.toBeUndefined();
  });

  it('when expired tokens are swept in the background, then lookups agree with the clock', async () => {
    jest.useFakeTimers({ now: 1_700_000_000_000 });
    try {
      const store = createMemoryTokenStore();
      opened.push(store);
      const mint = aMint({ ttlSeconds: 1800 });
      await store.mint(mint);
      await jest.advanceTimersByTimeAsync(60_000);
      await expect(store.lookup(mint.tokenHash)).resolves.toBeDefined();
      await jest.advanceTimersByTimeAsync(1800 * 1000);
      await expect(store.lookup(mint.tokenHash)).resolves.toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });
});
