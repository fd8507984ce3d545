/**
 * The services on a real Redis Cluster (3 masters, 3 replicas of Debian's redis-server, with
 * REDIS_CLUSTER_NODES): the contract's flows, the per-account issuance window and the freeing of
 * a replaced key's tokens, the failure limits, and a master lost right after a burst of
 * rotations and issuances: SIGKILLed while its replica, cut off from it before the rotations,
 * lacks them (that replica takes over), or restarted at once without its data (CONTRACT §1
 * "Scale-out engines", §3). One cluster for the file; the fault tests run last.
 */
import type request from 'supertest';
import { accessLayout, createRedisAccessStore, hashSecret } from '@platform/credentials';
import { contractFlows } from './flows';
import { eventually, type LocalRedisCluster } from '@platform/testing';
import { newAccount, seenBy, tokenOf, useClusterPlatform, type ClusterPlatform } from './platform';

const started = useClusterPlatform('redis_cluster', 'cluster', 90_000);

describe('the contract flows on a Redis Cluster', () => contractFlows(started));

/** The fault: it calls `rotate` once, when it chooses (all rotations answered 200, the new keys minted once). */
type Fault = (cluster: LocalRedisCluster, burst: { oldKeys: string[]; rotate(): Promise<string[]> }) => Promise<void>;

/**
 * Tokens minted on 9 accounts, then `fault`, during which every account's key is rotated. Then:
 * every service answers 200 or 503 (never a 500, always within 8 s) until the new keys mint and
 * read everywhere, within 30 s; no replaced key and no token minted before the rotations is
 * accepted anywhere; the services reconciled for the new masters.
 */
async function burstThen(fault: Fault): Promise<void> {
  const { platform, calls } = started();
  const accounts = await Promise.all(Array.from({ length: 9 }, () => newAccount(calls)));
  const earlier = await Promise.all(
    accounts.map(async (account) => [await tokenOf(calls, account.apiKey), await tokenOf(calls, account.apiKey)]),
  );
  const store = createRedisAccessStore(platform.redis, { keyPrefix: platform.prefix });
  const before = (await store.identity()).serverId;
  const cluster = platform.cluster as NonNullable<ClusterPlatform['cluster']>;
  let newKeys: string[] = [];
  await fault(cluster, {
    oldKeys: accounts.map((account) => account.apiKey),
    async rotate() {
      const rotated = await Promise.all(accounts.map((account) => calls.rotate(account.apiKey)));
      expect(rotated.map((response) => response.status)).toEqual(accounts.map(() => 200));
      newKeys = rotated.map((response) => (response.body as { apiKey: string }).apiKey);
      await Promise.all(newKeys.map((apiKey) => calls.mint(apiKey)));
      return newKeys;
    },
  });
  expect(newKeys).toHaveLength(accounts.length);
  const faultAt = Date.now();
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
  // The replaced keys and earlier tokens, asked until no answer is a 503: a service still
  // reconciling the new master refuses them with 503 (the new keys can work first, on the other
  // masters), and with 401 once it has. Every answer on the way is kept: none may accept them.
  const refusals = async () => ({
    replacedKeys: await Promise.all(accounts.map(async (account) => (await calls.mint(account.apiKey)).status)),
    earlierTokens: await Promise.all(earlier.flat().map((token) => seenBy(calls, token))),
  });
  const asked: Array<Awaited<ReturnType<typeof refusals>>> = [];
  const settled = async (): Promise<true | undefined> => {
    asked.push(await refusals());
    return JSON.stringify(asked.at(-1)).includes('503') && Date.now() - faultAt < 30_000 ? undefined : true;
  };
  await eventually(settled, 35_000, 'the refusals to settle');
  const refusedOrUnavailable = (status: unknown): boolean => status === 401 || status === 503 || status === false;
  // One expectation, so that a failure shows at once what was lost and what was wrongly accepted.
  const refused = { user: 401, categorization: 401, introspection: false };
  expect({
    working: working.size,
    seen: [...seen].sort(),
    ...asked.at(-1),
    acceptedOnTheWay: asked.flatMap((each) => [
      ...each.replacedKeys.filter((status) => status !== 401 && status !== 503),
      ...each.earlierTokens.filter((answer) => !Object.values(answer).every(refusedOrUnavailable)),
    ]),
  }).toEqual({
    working: newKeys.length,
    seen: [...seen].filter((each) => / (200|503)$/.test(each)).sort(),
    replacedKeys: accounts.map(() => 401),
    earlierTokens: earlier.flat().map(() => refused),
    acceptedOnTheWay: [],
  });
  // The services saw the new master and reconciled from Postgres before answering from it.
  const after = await store.identity();
  expect(after.serverId).not.toBe(before);
  expect(after.reconciledFor?.split('|')[0]).toBe(after.serverId);
}

const recordOf = (apiKey: string): string => accessLayout(started().platform.prefix).keyRecord(hashSecret(apiKey));

describe('a Redis Cluster master lost right after a burst of rotations and issuances', () => {
  test('when its replica, cut off before the rotations, takes over without them, then no replaced key or earlier token is accepted, the new keys work within 30 s, and nothing answers 500', async () => {
    await burstThen(async (cluster, { oldKeys, rotate }) => {
      const victim = await cluster.masterOf(recordOf(oldKeys[0] as string));
      const masters = await Promise.all(oldKeys.map((apiKey) => cluster.masterOf(recordOf(apiKey))));
      const onVictim = oldKeys.filter((_apiKey, index) => masters[index] === victim).map(recordOf);
      const generations = await Promise.all(onVictim.map((record) => cluster.readOn(victim, 'HGET', record, 'g')));
      expect(generations).toEqual(onVictim.map((): unknown => expect.stringMatching(/^[0-9]+$/)));
      const replica = await cluster.replicaOf(victim);
      await cluster.cutOff(replica);
      await rotate();
      // Acknowledged: the replaced keys' records are gone from the master.
      expect(await Promise.all(onVictim.map((record) => cluster.readOn(victim, 'EXISTS', record)))).toEqual(onVictim.map(() => 0));
      await cluster.kill(victim);
      // The replica that takes over missed them: it holds every replaced key's record at its old generation.
      expect(await Promise.all(onVictim.map((record) => cluster.readOn(replica, 'HGET', record, 'g')))).toEqual(generations);
      await cluster.settled();
      expect(await cluster.masterOf(recordOf(oldKeys[0] as string))).toBe(replica);
    });
  }, 90_000);

  test('when a master restarts at once without its data (before any failover), then the same holds', async () => {
    await burstThen(async (cluster, { rotate }) => {
      const [newKey] = await rotate();
      const victim = await cluster.masterOf(recordOf(newKey as string));
      await cluster.kill(victim);
      await cluster.restart(victim);
    });
  }, 60_000);
});
