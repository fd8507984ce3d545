import type pg from 'pg';
import type { Logger } from '@platform/runtime';
import { keyRefusalExplainer, watchAccessRecords } from '@platform/accounts';
import {
  createCredentialVerifier,
  memoryFailureLimit,
  redisFailureLimit,
  redisSeenJtis,
  memorySeenJtis,
  memoryPageSessionKeys,
  redisPageSessionKeys,
  sessionRefusalExplainer,
  type PageSessionKeys,
  type SeenJtis,
  type CredentialVerifier,
  type ExplainKeyRefusal,
  type FailureLimit,
  type WatchedAccessStore,
} from '@platform/credentials';
import type { EventBus } from '@platform/events';
import type { Adapters } from '@platform/infrastructure';
import type { UserConfig } from './config';
import { isAllowedTarget, sendWebhook, type TestNetwork } from '@platform/webhooks';
import type { TargetCheck } from './domain/notification-settings';
import type { WebhookSender } from './domain/webhooks';
import { createOutboxSignal, type OutboxSignal } from './outbox-signal';
import { pausesOf } from './pause-point';
import { createAccountTransactions, type AccountTransactionsOn } from './store/account-transaction';
import type { AccessRecordsDeps } from './store/access-records';
import { repairIntents } from './store/access-repairs';

/** The adapters the user service runs on (openInfrastructure opens them; never URLs). */
export type UserInfrastructure = Pick<Adapters, 'pool' | 'usagePool' | 'directPool' | 'redis' | 'bus'>;
export const USER_NEEDS = ['pool', 'usagePool', 'directPool', 'redis', 'bus'] as const;

/** Test webhook sends an account may make a minute (issue 45: a test send is no port scanner). */
export const WEBHOOK_TESTS_PER_MINUTE = 5;

/** Seams beside the adapters (tests, the quickstart). */
export interface UserSeams {
  /** The auth URL the account page calls, when known only after start (`pnpm start` on port 0). */
  accountPageAuthUrl?: () => string;
  /** Extra CA certificates (PEM) webhook test sends trust: tests' self-signed receivers. */
  webhookCa?: string;
  /** A test's names and receiver endpoint, for webhooks with the address rules on (never from configuration). */
  webhookNetwork?: TestNetwork;
}

export interface UserDeps {
  logger: Logger;
  pool: pg.Pool;
  /**
   * The connections usage batches run on: their own, one per batch lane, so that a batch never
   * queues for a connection behind the credential checks of the requests it will answer. The
   * embedded quickstart's one shared connection otherwise.
   */
  usagePool: pg.Pool;
  /** The access store's loss detection: start() after the migrations, before serving. */
  watch: WatchedAccessStore;
  /** Where the stores write access records (CONTRACT §3): closing writes and their repair, grants after commit. */
  access: AccessRecordsDeps;
  /** The one account transaction: every change of an account (credits, keys, status, e-mail) goes through it. */
  accounts: AccountTransactionsOn;
  credentials: CredentialVerifier;
  /** Why a key the access store does not know was refused (Postgres, on the refusal path only). */
  explainKey: ExplainKeyRefusal;
  /** As `credentials`, and also account-page sessions: for the account's own pages and data only (CONTRACT §4.7). */
  accountCredentials: CredentialVerifier;
  /** Which key bought each page session, so that a disabled account's session says so when refused. */
  pageSessionKeys: PageSessionKeys;
  /** Failed admin-token attempts per client address, on the access store's Redis (in memory when the store is the embedded one). */
  adminFailures: FailureLimit;
  /** Failed account-page sign-ins per client address (AUTH_FAILURES_PER_IP), as the token endpoint counts its own. */
  pageSignInFailures: FailureLimit;
  /** Test sends per account (`webhook-test`, WEBHOOK_TESTS_PER_MINUTE a minute), counted as the failure limits are. */
  webhookTests: FailureLimit;
  /** `jti`s of service JWTs seen within their lifetime (a replay is refused), on Redis (in memory when the store is the embedded one). */
  seenServiceJwts: SeenJtis;
  /** Where the outbox relay publishes `balance.changed` events. */
  bus: EventBus;
  /** Rung after a request that may have written outbox events, so that the relay need not wait for its next poll. */
  outbox: OutboxSignal;
  /** Balance webhooks (CONTRACT §6.1): whether a URL may be set, and the signed, SSRF-safe sender of test events. */
  webhooks: { allowed: TargetCheck; send: WebhookSender };
  /** The auth service's base URL as customers' browsers reach it (the account page's sign-in and sign-out). */
  accountPageAuthUrl: () => string;
  /** Stops the access store's watch; the adapters are closed by whoever opened them. */
  close(): Promise<void>;
}

/** The user service's parts over ready adapters; it opens no connection itself. */
export function createDeps(config: UserConfig, logger: Logger, infrastructure: UserInfrastructure, seams: UserSeams = {}): UserDeps {
  const { pool, usagePool, bus, redis } = infrastructure;
  const limitOptions = { points: config.authFailuresPerIp, keyPrefix: `${config.redisKeyPrefix}rl:admin-fail` };
  const webhookTestOptions = { points: WEBHOOK_TESTS_PER_MINUTE, keyPrefix: `${config.redisKeyPrefix}rl:webhook-test` };
  const pageLimitOptions = { points: config.authFailuresPerIp, keyPrefix: `${config.redisKeyPrefix}rl:page-fail` };
  const watch = watchAccessRecords(pool, redis, logger);
  const outbox = createOutboxSignal();
  const explainKey = keyRefusalExplainer(pool);
  const pageSessionKeys = redis.client ? redisPageSessionKeys(redis.client, `${config.redisKeyPrefix}ps-key:`) : memoryPageSessionKeys();
  const explainSession = sessionRefusalExplainer(pageSessionKeys, explainKey);
  const access: AccessRecordsDeps = {
    writer: watch.store,
    wake: () => outbox.notify(),
    intents: repairIntents(redis.client, `${config.redisKeyPrefix}access:repair`),
    pool,
    logger,
    pauses: pausesOf(config.testPauseAt),
  };
  return {
    logger,
    pool,
    usagePool,
    watch,
    access,
    accounts: createAccountTransactions(pool, access),
    credentials: createCredentialVerifier({ access: watch.store, explainKey }),
    explainKey,
    accountCredentials: createCredentialVerifier({ access: watch.store, pageSessions: true, explainKey, explainSession }),
    pageSessionKeys,
    adminFailures: redis.client ? redisFailureLimit(redis.client, limitOptions) : memoryFailureLimit(limitOptions),
    pageSignInFailures: redis.client ? redisFailureLimit(redis.client, pageLimitOptions) : memoryFailureLimit(pageLimitOptions),
    webhookTests: redis.client ? redisFailureLimit(redis.client, webhookTestOptions) : memoryFailureLimit(webhookTestOptions),
    seenServiceJwts: redis.client ? redisSeenJtis(redis.client, `${config.redisKeyPrefix}jti:`) : memorySeenJtis(),
    bus,
    outbox,
    accountPageAuthUrl: seams.accountPageAuthUrl ?? (() => config.accountPageAuthUrl),
    webhooks: {
      allowed: (url) => isAllowedTarget(url, { allowInsecure: config.webhookAllowInsecure, network: seams.webhookNetwork }),
      send: (request) =>
        sendWebhook(request, { allowInsecure: config.webhookAllowInsecure, ca: seams.webhookCa, network: seams.webhookNetwork }),
    },
    close() {
      watch.stop();
      return Promise.resolve();
    },
  };
}
