/**
 * What a platform under test stands on, before any service starts: a private database (or the
 * test's own), an SMTP capture when asked, and the variables naming a key prefix and RabbitMQ
 * topology of the test's own (`platformEnv`). `stop()` runs what was added with `onStop` (newest
 * first), then deletes the topology and the keys, closes the capture and drops the database.
 */
import { closeRedis, connectRedis } from '@platform/credentials';
import { DEFAULT_TAXONOMY_FILE } from '@platform/categorization';
import { silentLogger } from '../logs';
import { createPrivateDatabase } from '../private-database';
import { deleteTopology } from '../rabbitmq';
import { deleteKeys } from '../redis';
import { testServers, uniqueId } from '../servers';
import { startSmtpCapture, type SmtpCapture } from '../smtp';

export interface PlatformResourcesOptions {
  /** Names the private database, the key prefix and the exchange (`hostile` → `aap_test_hostile_…`). */
  name: string;
  /** Variables over the defaults (`platformEnv`). */
  env?: Record<string, string>;
  /** Start an SMTP capture (SMTP_URL names it). */
  smtp?: boolean;
  /** The database's URL when the test brings its own (it is then neither created nor dropped). */
  databaseUrl?: string;
  /** Leaves the key prefix's keys in Redis when stopped. */
  keepKeys?: boolean;
}

export interface PlatformResources {
  /** The variables every service starts with. */
  env: Readonly<Record<string, string>>;
  databaseUrl: string;
  /** REDIS_KEY_PREFIX. */
  prefix: string;
  /** BALANCE_EXCHANGE, NOTIFIER_QUEUE (NOTIFIER_DEAD_LETTER_QUEUE is `<queue>.dead`). */
  exchange: string;
  queue: string;
  smtp: SmtpCapture | undefined;
  /** Runs `cleanup` when stopped, before what was added earlier. */
  onStop(cleanup: () => Promise<unknown>): void;
  stop(): Promise<void>;
}

/** The variables of a platform named `name`: the shared servers, the test's own names, ports the OS picks, limits no test reaches. */
export function platformEnv(name: string, databaseUrl: string, smtpUrl?: string): Record<string, string> {
  const exchange = uniqueId(`test.${name}.`);
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL: testServers.redisUrl,
    REDIS_KEY_PREFIX: `test:${name}:${uniqueId()}:`,
    AMQP_URL: testServers.amqpUrl,
    ...(smtpUrl === undefined ? {} : { SMTP_URL: smtpUrl }),
    ADMIN_TOKEN: `${name}-test-admin-token-${uniqueId()}-0123456789`,
    SERVICE_JWT_SECRET: `${name}-test-service-jwt-secret-${uniqueId()}-0123456789`,
    AUTH_URL: `http://auth.${name}.test`,
    AUTH_PORT: '0',
    USER_PORT: '0',
    CATEGORIZATION_PORT: '0',
    NOTIFIER_PORT: '0',
    BALANCE_EXCHANGE: exchange,
    NOTIFIER_QUEUE: `${exchange}.balance-changed`,
    NOTIFIER_DEAD_LETTER_QUEUE: `${exchange}.balance-changed.dead`,
    IAB_TAXONOMY_FILE: DEFAULT_TAXONOMY_FILE,
    // Tests share one address and one account for many calls: the limits have their own tests.
    AUTH_FAILURES_PER_IP: '100000',
    TOKEN_RATE_PER_ACCOUNT: '100000',
    LOG_LEVEL: 'error',
  };
}

export async function startPlatformResources(options: PlatformResourcesOptions): Promise<PlatformResources> {
  const cleanups: Array<() => Promise<unknown>> = [];
  const stop = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  try {
    let databaseUrl = options.databaseUrl;
    if (databaseUrl === undefined) {
      const db = await createPrivateDatabase(options.name.replace(/-/g, '_'));
      cleanups.push(() => db.drop());
      databaseUrl = db.url;
    }
    let smtp: SmtpCapture | undefined;
    if (options.smtp === true) {
      const capture = await startSmtpCapture();
      cleanups.push(() => capture.close());
      smtp = capture;
    }
    const env: Record<string, string> = { ...platformEnv(options.name, databaseUrl, smtp?.url), ...options.env };
    // A Redis Cluster of the test's own stands in for the shared Redis; the test owns its keys.
    if (env.REDIS_CLUSTER_NODES !== undefined) delete env.REDIS_URL;
    const exchange = env.BALANCE_EXCHANGE as string;
    const queue = env.NOTIFIER_QUEUE as string;
    const redisUrl = env.REDIS_URL;
    if (redisUrl !== undefined && options.keepKeys !== true) {
      cleanups.push(async () => {
        const redis = await connectRedis(redisUrl, silentLogger());
        try {
          await deleteKeys(redis, env.REDIS_KEY_PREFIX as string);
        } finally {
          await closeRedis(redis);
        }
      });
    }
    cleanups.push(() =>
      deleteTopology(testServers.amqpUrl, {
        queues: [queue, env.NOTIFIER_DEAD_LETTER_QUEUE as string],
        exchanges: [exchange, `${exchange}.dlx`],
      }),
    );
    return {
      env,
      databaseUrl,
      prefix: env.REDIS_KEY_PREFIX as string,
      exchange,
      queue,
      smtp,
      onStop: (cleanup) => void cleanups.push(cleanup),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
