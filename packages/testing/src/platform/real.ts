/**
 * The platform in this process on the real servers (mode `real`): the services a test names,
 * each started by its own `runXService` over one private database, a key prefix and RabbitMQ
 * topology of the test's own, and an SMTP capture when the notifier runs. `stop()` takes it all
 * down: the services, then the topology, the keys, the capture and the database.
 */
import type { Adapters } from '@platform/infrastructure';
import type { Logger, RunningService } from '@platform/runtime';
import { loadConfig as loadAuthConfig, runAuthService } from '@platform/auth';
import { loadConfig as loadCategorizationConfig, runCategorizationService } from '@platform/categorization';
import { loadConfig as loadNotifierConfig, runNotifierService } from '@platform/notifier';
import { loadConfig as loadUserConfig, runUserService, type UserSeams } from '@platform/user';
import type { Pool } from 'pg';
import { closeRedis, connectRedis, createRedisAccessStore } from '@platform/credentials';
import { createPool } from '@platform/db';
import { createInProcessEventBus } from '@platform/events';
import { anAccount, type AccountOptions, type TestAccount } from '../accounts';
import { mintAccessToken, type TokenTarget } from '../access-token';
import { silentLogger } from '../logs';
import type { PlatformHandle, PlatformService } from './handle';
import { startPlatformResources, type PlatformResources } from './resources';

export const EVERY_SERVICE: readonly PlatformService[] = ['user', 'categorization', 'auth', 'notifier'];

export interface RealPlatformOptions {
  /** Names the private database, the key prefix and the exchange (`hostile` → `aap_test_hostile_…`). */
  name: string;
  /** The services to start, in this order (the notifier after the user service it calls). Default: all four. */
  services?: readonly PlatformService[];
  /** Variables for every service, over the defaults (`platformEnv`). */
  env?: Record<string, string>;
  /** Variables of one service, over `env`. */
  serviceEnv?: Partial<Record<PlatformService, Record<string, string>>>;
  /** Default: silent. A function gives each service a logger of its own. */
  logger?: Logger | ((service: PlatformService) => Logger);
  /**
   * Where the user service's outbox relay publishes and the notifier consumes. `amqp` (default):
   * the shared RabbitMQ, through an exchange and queues of the test's own; `in-process`: one bus
   * in this process (nothing reaches RabbitMQ).
   */
  bus?: 'amqp' | 'in-process';
  /** The database's URL when the test brings its own (it is then neither created nor dropped). */
  databaseUrl?: string;
  /** Leaves the key prefix's keys in Redis when stopped (a restore drill starts the services on them again). */
  keepKeys?: boolean;
  /** Seams of the user service and the notifiers beside their variables: a webhook receiver's CA and test network. */
  seams?: Partial<Record<'user' | 'notifier', WebhookSeams>>;
}

/** What a test's webhook receiver gives the services that send to it (`startWebhookReceiver`: `ca`, `network()`). */
export type WebhookSeams = Pick<UserSeams, 'webhookCa' | 'webhookNetwork'>;

/** What the platform stands on (its `env` is what every service started with, before `serviceEnv`; `smtp` runs with the notifier unless `env` names an SMTP_URL), and: */
export interface Platform extends Omit<PlatformResources, 'onStop' | 'stop'>, PlatformHandle {
  /** Every started service, by name. */
  services: Partial<Record<PlatformService, RunningService>>;
  /** A started service's URL (throws for one this platform does not run). */
  url(service: PlatformService): string;
  /**
   * Starts another instance of `service` (a replica, or one configured otherwise: a key prefix,
   * limits, a Redis behind a proxy) with `env` over its variables and `given` over the adapters the
   * platform gives (the in-process bus); stopped with the platform.
   */
  another(service: PlatformService, env: Record<string, string>, given?: Partial<Adapters>): Promise<string>;
  /** As `another`, answering the instance itself, for a test that stops it before the platform (a notifier: once consuming). */
  anotherInstance(service: PlatformService, env: Record<string, string>, given?: Partial<Adapters>): Promise<RunningService>;
  /** The platform's database. */
  pool: Pool;
  /** An account inserted into the user tables (credits: product id -> its pool's credits), its key's access record written. */
  account(credits?: Record<number, number>, options?: Pick<AccountOptions, 'ledger'>): Promise<TestAccount>;
  /** A token minted from the account's key as the auth service mints it, written straight to the platform's Redis. */
  token(account: { apiKey: string }, ttlSeconds?: number): Promise<string>;
}

export async function startRealPlatform(options: RealPlatformOptions): Promise<Platform> {
  const names = options.services ?? EVERY_SERVICE;
  const logger = (name: PlatformService): Logger =>
    typeof options.logger === 'function' ? options.logger(name) : (options.logger ?? silentLogger());
  const services: Partial<Record<PlatformService, RunningService>> = {};
  const started: RunningService[] = [];
  const resources = await startPlatformResources({
    name: options.name,
    smtp: names.includes('notifier') && options.env?.SMTP_URL === undefined,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }),
    ...(options.keepKeys === undefined ? {} : { keepKeys: options.keepKeys }),
  });
  const { env, databaseUrl, exchange, queue, smtp } = resources;
  const stop = async (): Promise<void> => {
    for (const service of started.splice(0).reverse()) await service.stop().catch(() => undefined);
    await resources.stop();
  };
  try {
    let given: Partial<Adapters> = {};
    if (options.bus === 'in-process') {
      const bus = createInProcessEventBus();
      resources.onStop(() => bus.close());
      given = { bus };
    }
    const envOf = (name: PlatformService, extra: Record<string, string>): Record<string, string> => ({
      ...env,
      ...options.serviceEnv?.[name],
      ...extra,
    });
    const start = async (
      name: PlatformService,
      extra: Record<string, string> = {},
      extraGiven: Partial<Adapters> = {},
    ): Promise<RunningService> => {
      const adapters = { ...given, ...extraGiven };
      switch (name) {
        case 'user':
          return runUserService({
            config: loadUserConfig(envOf(name, extra)),
            logger: logger(name),
            given: adapters,
            ...options.seams?.user,
          });
        case 'categorization':
          return runCategorizationService({ config: loadCategorizationConfig(envOf(name, extra)), logger: logger(name) });
        case 'auth':
          return runAuthService({ config: loadAuthConfig(envOf(name, extra)), logger: logger(name) });
        case 'notifier': {
          const userUrl = services.user?.url ?? 'http://user.invalid';
          const notifier = await runNotifierService({
            config: loadNotifierConfig({ USER_URL: userUrl, ...envOf(name, extra) }),
            logger: logger(name),
            given: adapters,
            ...options.seams?.notifier,
          });
          started.push(notifier);
          await notifier.consuming;
          started.pop();
          return notifier;
        }
      }
    };
    for (const name of names) {
      const service = await start(name);
      started.push(service);
      services[name] = service;
    }
    const pool = createPool({ connectionString: databaseUrl, logger: silentLogger(), max: 4 });
    resources.onStop(() => pool.end());
    let access: Promise<TokenTarget> | undefined;
    const accessStore = async (): Promise<TokenTarget> => {
      // On a Redis Cluster of the test's own (REDIS_CLUSTER_NODES), the test writes its accounts' records itself.
      if (env.REDIS_URL === undefined) throw new Error(`the platform of ${options.name} has no REDIS_URL to write access records to`);
      const redis = await connectRedis(env.REDIS_URL, silentLogger());
      resources.onStop(() => closeRedis(redis));
      const keyPrefix = env.REDIS_KEY_PREFIX as string;
      return { redis, keyPrefix, access: createRedisAccessStore(redis, { keyPrefix }) };
    };
    const anotherInstance: Platform['anotherInstance'] = async (name, extra, extraGiven) => {
      const service = await start(name, extra, extraGiven);
      started.push(service);
      return service;
    };
    return {
      env,
      pool,
      account: async (credits = {}, extra = {}) =>
        anAccount(pool, { ...extra, credits, access: (await (access ??= accessStore())).access }),
      token: async (account, ttlSeconds) => mintAccessToken(await (access ??= accessStore()), account.apiKey, ttlSeconds),
      databaseUrl,
      prefix: env.REDIS_KEY_PREFIX as string,
      exchange,
      queue,
      smtp,
      services,
      urls: Object.fromEntries(Object.entries(services).map(([name, service]) => [name, service.url])),
      url(name) {
        const service = services[name];
        if (!service) throw new Error(`the platform of ${options.name} runs no ${name} service`);
        return service.url;
      },
      anotherInstance,
      another: async (name, extra, extraGiven) => (await anotherInstance(name, extra, extraGiven)).url,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
