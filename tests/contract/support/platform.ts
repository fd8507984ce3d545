/**
 * The platform under the contract suite: the services in-process on one private database, with
 * the parts a test file asks for (each file starts its own, so files run in parallel).
 */
import type { Pool } from 'pg';
import type { RunningService } from '@platform/runtime';
import { closeRedis, connectRedis, createRedisAccessStore, type AccessWriter } from '@platform/credentials';
import { createPool } from '@platform/db';
import { createInProcessEventBus } from '@platform/events';
import {
  anAccount,
  captureLogs,
  createPrivateDatabase,
  deleteKeys,
  deleteTopology,
  freePort,
  silentLogger,
  startSmtpCapture,
  startTcpProxy,
  testServers,
  uniqueId,
  type TcpProxy,
  type TestAccount,
} from '@platform/testing';
import { loadConfig as loadAuthConfig, runAuthService } from '@platform/auth';
import { DEFAULT_TAXONOMY_FILE, loadConfig as loadCategorizationConfig, runCategorizationService } from '@platform/categorization';
import { loadConfig as loadNotifierConfig, runNotifierService } from '@platform/notifier';
import { loadConfig as loadUserConfig, runUserService } from '@platform/user';
import { call, seedBearer } from './http';
import { ADMIN_TOKEN, LOW_LIMIT, OPS_TOKEN, SERVICE_JWT_SECRET, SUPPORT_TOKEN } from './oracles';

/** The parts beyond the user and the main auth service, which every platform runs. */
export interface PlatformParts {
  /** `categorization`. */
  categorization?: boolean;
  /** `replicaCategorization` (and `categorization`). */
  replicaCategorization?: boolean;
  /** `notifier` (RabbitMQ topology and an SMTP capture of its own). */
  notifier?: boolean;
  /** `strictAuth`, `proxiedAuth`, `meteredAuth`. */
  limitedAuth?: boolean;
  /** `fragileUser`, `fragileAuth`, `redisProxy`. */
  fragile?: boolean;
  /** Every service logs into `logLines` (otherwise nothing is logged). */
  logs?: boolean;
}

/** Every part: what a file that tests across all services asks for. */
const EVERY_PART: Required<PlatformParts> = {
  categorization: true,
  replicaCategorization: true,
  notifier: true,
  limitedAuth: true,
  fragile: true,
  logs: false,
};

export interface Platform {
  auth: string;
  user: string;
  categorization: string;
  /** A second categorization replica on the same database, polling for changes every 200 ms. */
  replicaCategorization: string;
  notifier: string;
  /** AUTH_FAILURES_PER_IP=3, TRUST_PROXY=false. */
  strictAuth: string;
  /** AUTH_FAILURES_PER_IP=3, TRUST_PROXY=loopback (the suite connects as the proxy). */
  proxiedAuth: string;
  /** TOKEN_RATE_PER_ACCOUNT=3. */
  meteredAuth: string;
  /** A user service that reaches Redis through `redisProxy` (cut it to simulate an outage). */
  fragileUser: string;
  /** An auth service that reaches Redis through `redisProxy`. */
  fragileAuth: string;
  redisProxy: TcpProxy;
  pool: Pool;
  /** The JSON lines every service logged (only with the `logs` part). */
  logLines(): Array<Record<string, unknown>>;
  /** An account inserted into the user tables (credits: product id -> its pool's credits), with its access records. */
  account(credits?: Record<number, number>): Promise<TestAccount>;
  /** A token minted through the seed flow of the main auth service. */
  token(apiKey: string, expiresIn?: number): Promise<string>;
  stop(): Promise<void>;
}

/** A part the file did not ask for: reading it is a mistake in the test file, said at once. */
function part<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`the contract platform of this file runs no ${name}: ask usePlatform for it`);
  return value;
}

export async function startPlatform(parts: PlatformParts = EVERY_PART): Promise<Platform> {
  const started: RunningService[] = [];
  const cleanups: Array<() => Promise<unknown>> = [];
  const prefix = `test:contract:${uniqueId()}:`;
  const captured = parts.logs === true ? captureLogs('contract') : undefined;
  const logger = captured?.logger ?? silentLogger();
  const stop = async (): Promise<void> => {
    for (const service of started.reverse()) await service.stop().catch(() => undefined);
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };

  try {
    const db = await createPrivateDatabase('contract');
    cleanups.push(() => db.drop());
    const bus = createInProcessEventBus();
    cleanups.push(() => bus.close());
    const base = {
      DATABASE_URL: db.url,
      REDIS_URL: testServers.redisUrl,
      REDIS_KEY_PREFIX: prefix,
      AMQP_URL: testServers.amqpUrl,
      ADMIN_TOKEN,
      ADMIN_TOKENS: `support:support=${SUPPORT_TOKEN},ops:admin=${OPS_TOKEN}`,
      SERVICE_JWT_SECRET,
      AUTH_PORT: '0',
      AUTH_URL: 'http://auth.contract.test',
      USER_PORT: '0',
      CATEGORIZATION_PORT: '0',
      AUTH_FAILURES_PER_IP: '100000',
      TOKEN_RATE_PER_ACCOUNT: '100000',
      IAB_TAXONOMY_FILE: DEFAULT_TAXONOMY_FILE,
      CATEGORY_REFRESH_INTERVAL_MS: '3600000',
      // Expired reservations come back within 60 s (CONTRACT §7.1); the suite waits for less.
      RESERVATION_SWEEP_MS: '200',
    };
    const run = async (service: Promise<RunningService>): Promise<string> => {
      const running = await service;
      started.push(running);
      return running.url;
    };

    const user = await run(runUserService({ config: loadUserConfig(base), logger, given: { bus } }));
    let redisProxy: TcpProxy | undefined;
    let fragileUser: string | undefined;
    if (parts.fragile) {
      const proxy = await startTcpProxy(Number(new URL(testServers.redisUrl).port || 6379));
      redisProxy = proxy;
      cleanups.push(() => proxy.close());
      fragileUser = await run(
        runUserService({ config: loadUserConfig({ ...base, REDIS_URL: proxy.url(testServers.redisUrl) }), logger, given: { bus } }),
      );
    }
    let categorization: string | undefined;
    let replicaCategorization: string | undefined;
    if (parts.categorization || parts.replicaCategorization)
      categorization = await run(runCategorizationService({ config: loadCategorizationConfig(base), logger }));
    if (parts.replicaCategorization)
      replicaCategorization = await run(
        runCategorizationService({ config: loadCategorizationConfig({ ...base, CATEGORY_REFRESH_INTERVAL_MS: '200' }), logger }),
      );
    // The metadata names AUTH_URL, and the suite calls the endpoints it names: the port is chosen first.
    const authPort = String(await freePort());
    const auth = await run(
      runAuthService({ config: loadAuthConfig({ ...base, AUTH_PORT: authPort, AUTH_URL: `http://127.0.0.1:${authPort}` }), logger }),
    );
    const fragileAuth =
      redisProxy === undefined
        ? undefined
        : await run(runAuthService({ config: loadAuthConfig({ ...base, REDIS_URL: redisProxy.url(testServers.redisUrl) }), logger }));
    // Each limited service counts under a prefix of its own; the accounts of account() get their
    // access records under every prefix (the user service writes only the main one).
    const prefixes = [prefix];
    const limitedAuth = (overrides: Record<string, string>): Promise<string> => {
      const own = `${prefix}${uniqueId('limits')}:`;
      prefixes.push(own);
      return run(runAuthService({ config: loadAuthConfig({ ...base, REDIS_KEY_PREFIX: own, ...overrides }), logger }));
    };
    let [strictAuth, proxiedAuth, meteredAuth]: Array<string | undefined> = [];
    if (parts.limitedAuth) {
      strictAuth = await limitedAuth({ AUTH_FAILURES_PER_IP: String(LOW_LIMIT), TRUST_PROXY: 'false' });
      proxiedAuth = await limitedAuth({ AUTH_FAILURES_PER_IP: String(LOW_LIMIT), TRUST_PROXY: 'loopback' });
      meteredAuth = await limitedAuth({ TOKEN_RATE_PER_ACCOUNT: String(LOW_LIMIT) });
    }

    let notifier: string | undefined;
    if (parts.notifier) {
      const smtp = await startSmtpCapture();
      cleanups.push(() => smtp.close());
      const exchange = uniqueId('test.contract.');
      const queue = `${exchange}.balance-changed`;
      cleanups.push(() =>
        deleteTopology(testServers.amqpUrl, { queues: [queue, `${queue}.dead`], exchanges: [exchange, `${exchange}.dlx`] }),
      );
      const notifierService = await runNotifierService({
        config: loadNotifierConfig({
          DATABASE_URL: db.url,
          AMQP_URL: testServers.amqpUrl,
          SMTP_URL: smtp.url,
          NOTIFIER_PORT: '0',
          USER_URL: user,
          BALANCE_EXCHANGE: exchange,
          NOTIFIER_QUEUE: queue,
          NOTIFIER_DEAD_LETTER_QUEUE: `${queue}.dead`,
        }),
        logger,
      });
      started.push(notifierService);
      await notifierService.consuming;
      notifier = notifierService.url;
    }

    const pool = createPool({ connectionString: db.url, max: 4, logger });
    const accessRedis = await connectRedis(testServers.redisUrl, logger);
    cleanups.push(() => closeRedis(accessRedis));
    const stores = prefixes.map((keyPrefix) => createRedisAccessStore(accessRedis, { keyPrefix }));
    const everyPrefix: AccessWriter = {
      putKeys: async (records) => void (await Promise.all(stores.map((store) => store.putKeys(records)))),
      deleteKeys: async (keyHashes) => void (await Promise.all(stores.map((store) => store.deleteKeys(keyHashes)))),
      carryIssuanceWindow: async (from, to) => void (await Promise.all(stores.map((store) => store.carryIssuanceWindow(from, to)))),
      setPoolCredit: async (keyHashes, poolId, credited) =>
        void (await Promise.all(stores.map((store) => store.setPoolCredit(keyHashes, poolId, credited)))),
    };
    cleanups.push(async () => {
      await pool.end();
      // Only this file's own keys (its unique prefix), never anyone else's.
      const redis = await connectRedis(testServers.redisUrl, logger);
      try {
        await deleteKeys(redis, prefix);
      } finally {
        await closeRedis(redis);
      }
    });

    return {
      auth,
      user,
      get categorization() {
        return part(categorization, 'categorization service');
      },
      get replicaCategorization() {
        return part(replicaCategorization, 'categorization replica');
      },
      get notifier() {
        return part(notifier, 'notifier');
      },
      get strictAuth() {
        return part(strictAuth, 'limited auth services');
      },
      get proxiedAuth() {
        return part(proxiedAuth, 'limited auth services');
      },
      get meteredAuth() {
        return part(meteredAuth, 'limited auth services');
      },
      get fragileUser() {
        return part(fragileUser, 'fragile services');
      },
      get fragileAuth() {
        return part(fragileAuth, 'fragile services');
      },
      get redisProxy() {
        return part(redisProxy, 'fragile services');
      },
      pool,
      logLines: () => part(captured, 'log capture').lines(),
      account: (credits = {}) => anAccount(pool, { credits, access: everyPrefix }),
      async token(apiKey, expiresIn = 3600) {
        const reply = await call(auth, '/oauth/token', { headers: seedBearer(apiKey), json: { grantType: 'access_token', expiresIn } });
        if (reply.status !== 200) throw new Error(`token endpoint answered ${reply.status}: ${reply.text}`);
        return (reply.json() as { accessToken: string }).accessToken;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
