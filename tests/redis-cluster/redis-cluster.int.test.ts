/**
 * The services on a real Redis Cluster (3 masters, 3 replicas of Debian's redis-server, with
 * REDIS_CLUSTER_NODES): the contract's flows, the per-account issuance window and the freeing of
 * a replaced key's tokens, the failure limits, and a master lost right after a burst of
 * rotations and issuances: SIGKILLed (its replica takes over), or restarted at once without its
 * data (CONTRACT §1 "Scale-out engines", §3). One cluster for the file; the fault tests run last.
 */
import type request from 'supertest';
import { accessLayout, createRedisAccessStore, hashSecret } from '@platform/credentials';
import { contractFlows } from './flows';
import type { LocalRedisCluster, RedisClusterNodeProcess } from '@platform/testing';
import { client, newAccount, seenBy, startClusterPlatform, tokenOf, type ClusterPlatform } from './platform';

let platform: ClusterPlatform;
let calls: ReturnType<typeof client>;

beforeAll(async () => {
  platform = await startClusterPlatform('redis_cluster');
  calls = client(platform);
}, 90_000);

afterAll(async () => {
  await platform.stop();
}, 30_000);

describe('the contract flows on a Redis Cluster', () => contractFlows(() => ({ platform, calls })));

/**
 * A burst of issuances and rotations on 9 accounts, then `fault` on the master of one new key's
 * slot, answered at once. Then: every service answers 200 or 503 (never a 500, always within 8 s)
 * until the new keys mint and read everywhere, within 30 s; no replaced key and no token minted
 * before the rotations is accepted anywhere; the services reconciled for the new masters.
 */
async function burstThen(fault: (cluster: LocalRedisCluster, victim: RedisClusterNodeProcess) => Promise<void>): Promise<void> {
  const accounts = await Promise.all(Array.from({ length: 9 }, () => newAccount(calls)));
  const earlier = await Promise.all(
    accounts.map(async (account) => [await tokenOf(calls, account.apiKey), await tokenOf(calls, account.apiKey)]),
  );
  const rotated = await Promise.all(accounts.map((account) => calls.rotate(account.apiKey)));
  for (const response of rotated) expect(response.status).toBe(200);
  const newKeys = rotated.map((response) => (response.body as { apiKey: string }).apiKey);
  await Promise.all(newKeys.map((apiKey) => calls.mint(apiKey)));

  const store = createRedisAccessStore(platform.redis, { keyPrefix: platform.prefix });
  const before = (await store.identity()).serverId;
  const cluster = platform.cluster as NonNullable<ClusterPlatform['cluster']>;
  const victim = await cluster.masterOf(accessLayout(platform.prefix).keyRecord(hashSecret(newKeys[0] as string)));
  const faultAt = Date.now();
  await fault(cluster, victim);

  // Through the switch: the new keys mint and read on every service; every answer is 200 or 503
  // (never a 500), and comes within 8 s (a request may not hang on a node that is gone).
  const seen = new Set<string>();
  const answer = async (what: string, call: request.Test): Promise<request.Response | undefined> => {
    const response = await call.timeout(8000).catch(() => undefined);
    seen.add(`${what} ${response?.status ?? 'no answer'}`);
    return response;
  };
  const working = new Set<number>();
  // One token per key once minted (minting again and again would reach TOKEN_RATE_PER_ACCOUNT).
  const tokens = new Map<number, string>();
  while (working.size < newKeys.length && Date.now() - faultAt < 30_000) {
    await Promise.all(
      newKeys.map(async (apiKey, index) => {
        if (!tokens.has(index)) {
          const minted = await answer('token', calls.mint(apiKey));
          if (minted?.status === 200) tokens.set(index, (minted.body as { accessToken: string }).accessToken);
        }
        const token = tokens.get(index);
        if (token === undefined) return;
        const [balance, categories] = await Promise.all([
          answer('balance', calls.balance(token)),
          answer('categories', calls.categories(token)),
        ]);
        if (balance?.status === 200 && categories?.status === 200) working.add(index);
      }),
    );
  }
  expect({ working: working.size, seen: [...seen].sort() }).toEqual({
    working: newKeys.length,
    seen: [...seen].filter((each) => / (200|503)$/.test(each)).sort(),
  });

  for (const [index, account] of accounts.entries()) {
    expect((await calls.mint(account.apiKey)).status).toBe(401);
    for (const token of earlier[index] ?? [])
      expect(await seenBy(calls, token)).toEqual({ user: 401, categorization: 401, introspection: false });
  }
  // The services saw the new master and reconciled from Postgres before answering from it.
  const after = await store.identity();
  expect(after.serverId).not.toBe(before);
  expect(after.reconciledFor?.split('|')[0]).toBe(after.serverId);
}

describe('a Redis Cluster master lost right after a burst of rotations and issuances', () => {
  test('when the master is SIGKILLed (its replica takes over), then no replaced key or earlier token is accepted, the new keys work within 30 s, and nothing answers 500', async () => {
    await burstThen((cluster, victim) => cluster.kill(victim));
  }, 60_000);

  test('when a master restarts at once without its data (before any failover), then the same holds', async () => {
    await burstThen(async (cluster, victim) => {
      await cluster.kill(victim);
      await cluster.restart(victim);
    });
  }, 60_000);
});
