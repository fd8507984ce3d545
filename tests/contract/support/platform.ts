/**
 * The platform under the contract suite: `startPlatform` of @platform/testing/platform (mode
 * `real`: the services in-process on one private database, one in-process bus), with the parts a
 * test file asks for (each file starts its own, so files run in parallel) started as more
 * instances of its services.
 */
import type { Pool } from 'pg';
import { closeRedis, connectRedis, createRedisAccessStore, type AccessWriter } from '@platform/credentials';
import {
  anAccount,
  captureLogs,
  freePort,
  silentLogger,
  startTcpProxy,
  testServers,
  uniqueId,
  type TcpProxy,
  type TestAccount,
} from '@platform/testing';
import { startPlatform as startTestPlatform, type PlatformService } from '@platform/testing/platform';
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

/** The optional parts' members and the part each belongs to. */
const PART_OF = {
  categorization: 'categorization service',
  replicaCategorization: 'categorization replica',
  notifier: 'notifier',
  strictAuth: 'limited auth services',
  proxiedAuth: 'limited auth services',
  meteredAuth: 'limited auth services',
  fragileUser: 'fragile services',
  fragileAuth: 'fragile services',
  redisProxy: 'fragile services',
} as const;
type OptionalMember = keyof typeof PART_OF;

export async function startPlatform(parts: PlatformParts = EVERY_PART): Promise<Platform> {
  const captured = parts.logs === true ? captureLogs('contract') : undefined;
  const logger = captured?.logger ?? silentLogger();
  // The metadata names AUTH_URL, and the suite calls the endpoints it names: the port is chosen first.
  const authPort = String(await freePort());
  const withCategorization = parts.categorization === true || parts.replicaCategorization === true;
  const services: PlatformService[] = ['user', ...(withCategorization ? ['categorization' as const] : []), 'auth'];
  const platform = await startTestPlatform({
    name: 'contract',
    services: parts.notifier === true ? [...services, 'notifier'] : services,
    bus: 'in-process',
    logger,
    env: {
      ADMIN_TOKEN,
      ADMIN_TOKENS: `support:support=${SUPPORT_TOKEN},ops:admin=${OPS_TOKEN}`,
      SERVICE_JWT_SECRET,
      AUTH_URL: 'http://auth.contract.test',
      CATEGORY_REFRESH_INTERVAL_MS: '3600000',
      // Expired reservations come back within 60 s (CONTRACT §7.1); the suite waits for less.
      RESERVATION_SWEEP_MS: '200',
    },
    serviceEnv: { auth: { AUTH_PORT: authPort, AUTH_URL: `http://127.0.0.1:${authPort}` } },
  });
  const cleanups: Array<() => Promise<unknown>> = [];
  const stop = async (): Promise<void> => {
    await platform.stop();
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };

  try {
    const { prefix } = platform;
    // Another auth service: not on the main one's port and issuer.
    const anotherAuth = (env: Record<string, string>): Promise<string> =>
      platform.another('auth', { AUTH_PORT: '0', AUTH_URL: 'http://auth.contract.test', ...env });
    const members: Partial<Record<OptionalMember, string | TcpProxy>> = {};
    if (withCategorization) members.categorization = platform.url('categorization');
    if (parts.replicaCategorization)
      members.replicaCategorization = await platform.another('categorization', { CATEGORY_REFRESH_INTERVAL_MS: '200' });
    if (parts.notifier) members.notifier = platform.url('notifier');
    if (parts.fragile) {
      const proxy = await startTcpProxy(Number(new URL(testServers.redisUrl).port || 6379));
      cleanups.push(() => proxy.close());
      members.redisProxy = proxy;
      members.fragileUser = await platform.another('user', { REDIS_URL: proxy.url(testServers.redisUrl) });
      members.fragileAuth = await anotherAuth({ REDIS_URL: proxy.url(testServers.redisUrl) });
    }
    // Each limited service counts under a prefix of its own; the accounts of account() get their
    // access records under every prefix (the user service writes only the main one).
    const prefixes = [prefix];
    const limitedAuth = (overrides: Record<string, string>): Promise<string> => {
      const own = `${prefix}${uniqueId('limits')}:`;
      prefixes.push(own);
      return anotherAuth({ REDIS_KEY_PREFIX: own, ...overrides });
    };
    if (parts.limitedAuth) {
      members.strictAuth = await limitedAuth({ AUTH_FAILURES_PER_IP: String(LOW_LIMIT), TRUST_PROXY: 'false' });
      members.proxiedAuth = await limitedAuth({ AUTH_FAILURES_PER_IP: String(LOW_LIMIT), TRUST_PROXY: 'loopback' });
      members.meteredAuth = await limitedAuth({ TOKEN_RATE_PER_ACCOUNT: String(LOW_LIMIT) });
    }

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

    const auth = platform.url('auth');
    const running = {
      auth,
      user: platform.url('user'),
      pool: platform.pool,
      logLines: () => part(captured, 'log capture').lines(),
      account: (credits: Record<number, number> = {}) => anAccount(platform.pool, { credits, access: everyPrefix }),
      async token(apiKey: string, expiresIn = 3600) {
        const reply = await call(auth, '/oauth/token', { headers: seedBearer(apiKey), json: { grantType: 'access_token', expiresIn } });
        if (reply.status !== 200) throw new Error(`token endpoint answered ${reply.status}: ${reply.text}`);
        return (reply.json() as { accessToken: string }).accessToken;
      },
      stop,
    };
    for (const member of Object.keys(PART_OF) as OptionalMember[])
      Object.defineProperty(running, member, { enumerable: true, get: () => part(members[member], PART_OF[member]) });
    return running as Platform;
  } catch (error) {
    await stop();
    throw error;
  }
}
