/**
 * The services on a real Redis Cluster (3 masters, 3 replicas of Debian's redis-server, with
 * REDIS_CLUSTER_NODES): the contract's flows, the per-account issuance window and the freeing of
 * a replaced key's tokens, the failure limits, and a master SIGKILLed right after a burst of
 * rotations and issuances (CONTRACT §1 "Scale-out engines", §3). One cluster for the file; the
 * fault test runs last.
 */
import { accessLayout, createRedisAccessStore, hashSecret, tokenShardTag } from '@platform/credentials';
import { client, seenBy, startClusterPlatform, STRICT_FAILURES, TOKEN_RATE, type ClusterPlatform } from './platform';

let platform: ClusterPlatform;
let calls: ReturnType<typeof client>;

beforeAll(async () => {
  platform = await startClusterPlatform('redis_cluster');
  calls = client(platform);
}, 90_000);

afterAll(async () => {
  await platform.stop();
}, 30_000);

async function newAccount(credits: Record<string, number> = { 1: 1000 }): Promise<{ id: number; apiKey: string }> {
  const created = await calls.createAccount(credits);
  expect(created.status).toBe(201);
  return { id: created.body.id as number, apiKey: created.body.apiKey as string };
}

async function tokenOf(apiKey: string): Promise<string> {
  const minted = await calls.mint(apiKey);
  expect(minted.status).toBe(200);
  return minted.body.accessToken as string;
}

describe('the contract flows on a Redis Cluster', () => {
  test('when an account mints, reads, is debited and rotates its key, then every service agrees, and the old key’s tokens are gone from Redis', async () => {
    const account = await newAccount({ 1: 100 });
    const token = await tokenOf(account.apiKey);
    expect(await seenBy(calls, token)).toEqual({ user: 200, categorization: 200, introspection: true });
    expect((await calls.debit(token, 1, 3)).status).toBe(200);
    expect((await calls.balance(token)).body.data).toContainEqual(expect.objectContaining({ product_id: 1, credits: 97 }));
    expect((await calls.usageHistory(token)).body).toEqual({ data: [expect.objectContaining({ product_id: 1, credits_used: 3 })] });

    const layout = accessLayout(platform.prefix);
    const tokenKey = layout.token(tokenShardTag(token), hashSecret(token));
    expect(await platform.redis.exists(tokenKey, layout.keyTokens(hashSecret(account.apiKey)))).toBe(2);
    const rotated = await calls.rotate(account.apiKey);
    expect(rotated.status).toBe(200);
    expect(await seenBy(calls, token)).toEqual({ user: 401, categorization: 401, introspection: false });
    expect((await calls.mint(account.apiKey)).status).toBe(401);
    // The replaced key's tokens no longer take memory (CONTRACT §3).
    expect(await platform.redis.exists(tokenKey, layout.keyTokens(hashSecret(account.apiKey)))).toBe(0);
    expect(await seenBy(calls, await tokenOf(rotated.body.apiKey as string))).toEqual({ user: 200, categorization: 200, introspection: true });
  });

  test('when an account rotates its key inside the issuance window, then TOKEN_RATE_PER_ACCOUNT counts on across the rotation', async () => {
    const account = await newAccount();
    for (let index = 0; index < TOKEN_RATE - 1; index += 1) await tokenOf(account.apiKey);
    const rotated = await calls.rotate(account.apiKey);
    expect(rotated.status).toBe(200);
    const again = await calls.rotate(rotated.body.apiKey as string);
    expect(again.status).toBe(200);
    const newKey = again.body.apiKey as string;
    expect((await calls.mint(newKey)).status).toBe(200);
    const limited = await calls.mint(newKey);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  test('when one address fails too often, then the failure limit on the cluster answers 429', async () => {
    const wrong = 'at_wrongwrongwrongwrongwrongwron';
    const statuses: number[] = [];
    for (let index = 0; index <= STRICT_FAILURES; index += 1) statuses.push((await calls.mint(wrong, platform.strictAuth)).status);
    expect(statuses).toEqual([...Array<number>(STRICT_FAILURES).fill(401), 429]);
  });
});

describe('a master SIGKILLed right after a burst of rotations and issuances', () => {
  test('then no replaced key or earlier token is accepted anywhere, the new keys work within 30 s, and nothing answers 500', async () => {
    const accounts = await Promise.all(Array.from({ length: 9 }, () => newAccount()));
    const earlier = await Promise.all(accounts.map(async (account) => [await tokenOf(account.apiKey), await tokenOf(account.apiKey)]));
    const rotated = await Promise.all(accounts.map((account) => calls.rotate(account.apiKey)));
    for (const response of rotated) expect(response.status).toBe(200);
    const newKeys = rotated.map((response) => response.body.apiKey as string);
    await Promise.all(newKeys.map((apiKey) => calls.mint(apiKey)));

    const store = createRedisAccessStore(platform.redis, { keyPrefix: platform.prefix });
    const before = (await store.identity()).serverId;
    const victim = await platform.cluster.masterOf(accessLayout(platform.prefix).keyRecord(hashSecret(newKeys[0] as string)));
    const killedAt = Date.now();
    await platform.cluster.kill(victim);

    // Through the switch: the new keys mint and read on every service; every answer is 200 or 503, never a 500.
    const seen = new Set<number>();
    const working = new Set<number>();
    while (working.size < newKeys.length && Date.now() - killedAt < 30_000) {
      await Promise.all(
        newKeys.map(async (apiKey, index) => {
          const minted = await calls.mint(apiKey);
          seen.add(minted.status);
          if (minted.status !== 200) return;
          const token = minted.body.accessToken as string;
          const [balance, categories] = await Promise.all([calls.balance(token), calls.categories(token)]);
          seen.add(balance.status).add(categories.status);
          if (balance.status === 200 && categories.status === 200) working.add(index);
        }),
      );
    }
    expect(working.size).toBe(newKeys.length);
    expect([...seen].filter((status) => status !== 200 && status !== 503)).toEqual([]);

    for (const [index, account] of accounts.entries()) {
      expect((await calls.mint(account.apiKey)).status).toBe(401);
      for (const token of earlier[index] ?? []) expect(await seenBy(calls, token)).toEqual({ user: 401, categorization: 401, introspection: false });
    }
    // The services saw the new master and reconciled from Postgres before answering from it.
    const after = await store.identity();
    expect(after.serverId).not.toBe(before);
    expect(after.reconciledFor).toBe(after.serverId);
  }, 60_000);
});
