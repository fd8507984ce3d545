import { RENEW_BEFORE_EXPIRY_MS, TokenCache, type GrantedToken } from './token-cache.js';

/** A grant whose answers the test releases one by one. */
function controlledGrant() {
  const waiting: Array<(token: GrantedToken) => void> = [];
  let count = 0;
  return {
    grant: () =>
      new Promise<GrantedToken>((resolve) => {
        count += 1;
        waiting.push(resolve);
      }),
    answer(accessToken: string, expiresIn = 1800) {
      waiting.shift()?.({ accessToken, expiresIn });
    },
    count: () => count,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('TokenCache', () => {
  it('when callers ask while a token is being fetched, then they share that one request', async () => {
    const grant = controlledGrant();
    const cache = new TokenCache(grant.grant, () => 0);
    const asked = Promise.all([cache.get(), cache.get(), cache.get()]);
    grant.answer('t1');
    expect(await asked).toEqual(['t1', 't1', 't1']);
    expect(await cache.get()).toBe('t1');
    expect(grant.count()).toBe(1);
  });

  it('when the token has a minute or less left, then it is renewed', async () => {
    const grant = controlledGrant();
    let now = 1_000;
    const cache = new TokenCache(grant.grant, () => now);
    const first = cache.get();
    grant.answer('t1', 1800);
    await first;

    now = 1_000 + 1800_000 - RENEW_BEFORE_EXPIRY_MS - 1;
    expect(await cache.get()).toBe('t1');
    now += 1;
    const renewed = cache.get();
    grant.answer('t2');
    expect(await renewed).toBe('t2');
    expect(grant.count()).toBe(2);
  });

  it('when a refused token is discarded, then a newer cached token is kept', async () => {
    const grant = controlledGrant();
    const cache = new TokenCache(grant.grant, () => 0);
    const first = cache.get();
    grant.answer('t1');
    await first;
    cache.discard('t1');
    const second = cache.get();
    grant.answer('t2');
    await second;

    cache.discard('t1');
    expect(await cache.get()).toBe('t2');
    expect(grant.count()).toBe(2);
  });

  it('when cleared while a token is being fetched, then that token is not cached', async () => {
    const grant = controlledGrant();
    const cache = new TokenCache(grant.grant, () => 0);
    const stale = cache.get();
    cache.clear();
    const fresh = cache.get();
    grant.answer('old-key-token');
    grant.answer('new-key-token');

    expect(await stale).toBe('old-key-token');
    expect(await fresh).toBe('new-key-token');
    await settle();
    expect(await cache.get()).toBe('new-key-token');
    expect(grant.count()).toBe(2);
  });

  it('when the fetch fails, then every waiting caller gets the error and the next call tries again', async () => {
    let calls = 0;
    const cache = new TokenCache(
      () => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error('refused')) : Promise.resolve({ accessToken: 't2', expiresIn: 1800 });
      },
      () => 0,
    );
    const results = await Promise.allSettled([cache.get(), cache.get()]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(await cache.get()).toBe('t2');
    expect(calls).toBe(2);
  });
});
