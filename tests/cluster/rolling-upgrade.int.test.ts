/**
 * A rolling upgrade (CONTRACT §8): the previous release (CHANGELOG.md: its tag, else the commit
 * named there) serves as 2 auth and 2 user replicas behind HAProxy, with accounts, rotated keys
 * and debits in its database. Under a steady load this checkout's migrations run while the old
 * replicas go on serving, then each replica is drained and replaced by one of this checkout, one
 * at a time; each new one starts as on a Redis it has not seen (the store's reconciled marker
 * removed), so it rewrites the access records from the previous release's data before it
 * serves. Debits answered 200 are sent again under their requestId all along, so that what one
 * release applied is replayed to the next. No answer is a 5xx other than 503, every debit answered
 * 200 is in the ledger once (and no other), and the keys rotated away before the upgrade stay
 * refused by every replica.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Pool } from 'pg';
import { accessLayout, closeRedis, connectRedis } from '@platform/credentials';
import { createPool } from '@platform/db';
import {
  createPrivateDatabase,
  deleteKeys,
  deleteTopology,
  silentLogger,
  testServers,
  uniqueId,
  type PrivateDatabase,
} from '@platform/testing';
import { migrate } from '@platform/testing/cluster';
import { changelogReleases, git, previousRelease, releaseCommit } from '../../scripts/releases';
import { bearer, call, seedBearer } from '../contract/support/http';
import { ledgerByRequest } from './support';
import { ROOT, startFleet, unpackRelease, type Fleet } from './upgrade-fleet';
import { acceptable, startUpgradeLoad } from './upgrade-load';

const SECRETS = { ADMIN_TOKEN: randomBytes(32).toString('base64url'), SERVICE_JWT_SECRET: randomBytes(48).toString('base64url') };
/** Probes of rotated keys fail on purpose: the per-address limits must not turn them into 429s. */
const LIMITS = { AUTH_FAILURES_PER_IP: '1000000', TOKEN_RATE_PER_ACCOUNT: '1000000' };
const CREDITS = 1_000_000;
const ACCOUNTS = 8;

describe('a rolling upgrade from the previous release', () => {
  const release = previousRelease();
  let work: string;
  let db: PrivateDatabase | undefined;
  let pool: Pool | undefined;
  let fleet: Fleet | undefined;
  let previousDir: string;

  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'rolling-upgrade-release-'));
    previousDir = unpackRelease(releaseCommit(release), work);
    db = await createPrivateDatabase('upgrade');
    pool = createPool({ connectionString: db.url, logger: silentLogger(), max: 2 });
    fleet = await startFleet({ dir: previousDir, databaseUrl: db.url, secrets: { ...SECRETS, ...LIMITS } });
  }, 150_000);

  afterAll(async () => {
    await fleet?.stop();
    await pool?.end();
    if (fleet) {
      const redis = await connectRedis(testServers.redisUrl, silentLogger());
      await deleteKeys(redis, fleet.env.REDIS_KEY_PREFIX as string);
      await closeRedis(redis);
      await deleteTopology(testServers.amqpUrl, { exchanges: [fleet.env.BALANCE_EXCHANGE as string] }).catch(() => undefined);
    }
    await db?.drop();
    rmSync(work, { recursive: true, force: true });
  }, 60_000);

  test(`when v${release.version}'s replicas are migrated under and replaced one by one, then no 5xx, every debit once, no revived key`, async () => {
    const live = fleet as Fleet;
    const admin = bearer(SECRETS.ADMIN_TOKEN);
    // Data written by the previous release: accounts, and a key rotated away on half of them.
    const accounts = await Promise.all(
      Array.from({ length: ACCOUNTS }, async () => {
        const email = `${uniqueId('upgrade')}@example.test`;
        const created = await call(live.front('user'), '/admin/v1/accounts', { headers: admin, json: { email, credits: { 1: CREDITS } } });
        expect(created.status).toBe(201);
        return created.json() as { id: number; apiKey: string };
      }),
    );
    const retired: string[] = [];
    for (const account of accounts.slice(0, ACCOUNTS / 2)) {
      const rotated = await call(live.front('user'), '/user-service/api-key/generate', { query: { currentApiKey: account.apiKey } });
      expect(rotated.status).toBe(200);
      retired.push(account.apiKey);
      account.apiKey = (rotated.json() as { apiKey: string }).apiKey;
    }

    const redis = await connectRedis(testServers.redisUrl, silentLogger());
    const marker = accessLayout(live.env.REDIS_KEY_PREFIX as string).reconciledMarker;
    const reconciled: Array<{ name: string; marker: string | null }> = [];
    const load = startUpgradeLoad(live, SECRETS.SERVICE_JWT_SECRET, accounts, retired);
    try {
      await load.progress(40);
      load.enter('migrated, previous release serving');
      await migrate(live.env, live.env.DATABASE_URL as string);
      await load.progress(40);
      for (const name of ['user-1', 'auth-1', 'user-2', 'auth-2']) {
        load.enter(`replacing ${name}`);
        // The replicas running keep the server they checked; the new one reconciles before it serves.
        await redis.del(marker);
        expect({ name, exit: await live.replace(name, ROOT) }).toEqual({ name, exit: 0 });
        reconciled.push({ name, marker: await redis.get(marker) });
        load.enter(`${name} replaced`);
        await load.progress(30);
      }
    } finally {
      await load.stop();
      await closeRedis(redis);
    }
    expect(reconciled.filter((entry) => entry.marker === null)).toEqual([]);

    expect(load.answers.filter((answer) => !acceptable(answer.status))).toEqual([]);
    expect([...new Set(load.answers.filter((answer) => answer.what.startsWith('retired')).map((answer) => answer.status))]).toEqual([401]);
    expect(load.answers.filter((answer) => answer.what === 'token' && answer.status !== 200 && answer.status !== 503)).toEqual([]);
    // The previous release's replicas really served on the migrated database.
    expect(
      load.answers.filter((answer) => answer.phase === 'migrated, previous release serving' && answer.status === 200).length,
    ).toBeGreaterThan(0);

    // Debits applied by the previous release replayed to this one's replicas alone.
    expect(load.answers.filter((answer) => answer.what === 'replay' && answer.phase === 'auth-2 replaced').length).toBeGreaterThan(0);
    // Every debit was answered 200 in the end, and the ledger holds each exactly once, and nothing else.
    expect(load.debits.filter((debit) => debit.statuses.at(-1) !== 200)).toEqual([]);
    const ledger = new Map(
      (await Promise.all(accounts.map((account) => ledgerByRequest(pool as Pool, account.id)))).flatMap((rows) => [...rows]),
    );
    expect(load.debits.filter((debit) => JSON.stringify(ledger.get(debit.requestId)) !== '[-1]')).toEqual([]);
    expect(ledger.size).toBe(load.debits.length);
    const balances = await (pool as Pool).query<{ spent: string }>(
      'SELECT sum($1::bigint - credits) AS spent FROM pool_balances WHERE account_id = ANY($2::int[]) AND pool_id = 1',
      [CREDITS, accounts.map((account) => account.id)],
    );
    expect(Number(balances.rows[0]?.spent)).toBe(load.debits.length);

    // Every replica now runs this checkout, and none takes a key rotated away before the upgrade.
    const current = { version: changelogReleases()[0]?.version, commit: git(['rev-parse', 'HEAD']) };
    for (const name of live.names()) {
      expect({ name, from: live.runsFrom(name), version: (await call(live.replica(name), '/version')).json() }).toEqual({
        name,
        from: ROOT,
        version: current,
      });
      for (const key of retired) {
        const probe = name.startsWith('auth')
          ? call(live.replica(name), '/oauth/token', { headers: seedBearer(key), json: { grantType: 'access_token' } })
          : call(live.replica(name), '/user-service/account-balance', { query: { apiKey: key, productId: '1' } });
        expect({ name, status: (await probe).status }).toEqual({ name, status: 401 });
      }
    }
  }, 180_000);
});
