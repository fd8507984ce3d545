import type { Express } from 'express';
import { Counter, Gauge, type Registry } from 'prom-client';
import { ConfigError, Health } from '@platform/runtime';
import { corsEndpoints, createHttpApp, largeJsonBodies, mountRouteGroups, type MetricsListener, type UsesOf } from '@platform/kernel';
import { pingPostgres } from '@platform/db';
import type { UserConfig } from './config';
import type { UserDeps } from './deps';
import { createBatchCommit } from './domain/commit-usage-batch';
import { createRecentAnswers } from './speed';
import { createUsageRecorder, type UsageRecorder } from './domain/usage';
import { createDebitBatcher } from './domain/usage-batcher';
import { adminOpenapi, openapi, userRoutes } from './openapi';
import { userRouteTable } from './routes';
import { createServiceJwtCheck } from './routes/service-jwt-check';
import { createReservations } from './domain/reservations';
import { createCreditHistoryReads } from './store/credit-history';
import { createReservationStore } from './store/reservations';
import { createBalanceReads } from './store/balances';
import { createCatalogueReads, keptCatalogue } from './store/catalogue';
import { countPendingEvents } from './store/outbox';
import { createUsageReads } from './store/usage-batch';
import { createAccountTransactions } from './store/account-transaction';
import { createTestFault } from './test-fault';
import { createUsageLedgerReads } from './store/usage-history';
import { createOperatorStore } from './store/operator';
import { createUserStore } from './store/user-store';
import { createWebhookStore } from './store/webhooks';

/** Committed answers kept in memory for replays (a replay usually follows its first copy within seconds). */
const RECENT_ANSWERS = { maxEntries: 10_000, maxAgeMs: 60 * 60 * 1000 };

/** Counts the usage API's outcomes (`usage_debits_total`) and the credits debited. */
function countedRecorder(recorder: UsageRecorder, registry: Registry): UsageRecorder {
  const debits = new Counter({
    name: 'usage_debits_total',
    help: 'Usage API debits, by outcome (debited, replayed, exhausted)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const credits = new Counter({
    name: 'usage_credits_debited_total',
    help: 'Credits debited through the usage API',
    registers: [registry],
  });
  return {
    async record(payer, request) {
      const result = await recorder.record(payer, request);
      const outcome = result.answer.outcome === 'exhausted' ? 'exhausted' : result.replayed ? 'replayed' : 'debited';
      debits.inc({ outcome });
      if (outcome === 'debited') credits.inc(request.units);
      return result;
    },
  };
}

/**
 * The usage API's debits: batched (group commit) on the usage connections, each batch through the
 * one account transaction (its credit bits, and the relay's wake-up after commit, as every change's).
 */
function usageRecorder(deps: UserDeps, config: UserConfig, registry: Registry): UsageRecorder {
  const commit = createBatchCommit({
    reads: createUsageReads(deps.usagePool),
    accounts: createAccountTransactions(deps.usagePool, deps.access, createTestFault(config.testFault)),
  });
  return countedRecorder(
    createUsageRecorder({
      batcher: createDebitBatcher({
        maxBatchSize: config.usageBatchMaxSize,
        maxWaitMs: config.usageBatchMaxWaitMs,
        lanes: config.usageBatchLanes,
        commit,
      }),
      answers: createRecentAnswers(RECENT_ANSWERS),
    }),
    registry,
  );
}

/**
 * What the route table's groups use (`UsesOf`: each group asks for its part by name): who calls
 * (credential checks, the admin tokens, the service JWT), the domain's use cases and reads over
 * the stores, and the pages' settings. The internal usage API's recorder counts on `usageRegistry`.
 */
function routeUses(deps: UserDeps, config: UserConfig, usageRegistry: Registry): UsesOf<typeof userRouteTable> {
  if (config.adminTokens.length === 0) throw new ConfigError('invalid configuration: ADMIN_TOKEN: Required');
  if (config.serviceJwtSecret === undefined) throw new ConfigError('invalid configuration: SERVICE_JWT_SECRET: Required');
  const kept = keptCatalogue();
  return {
    accountCredentials: deps.accountCredentials,
    credentials: deps.credentials,
    explainKey: deps.explainKey,
    requireServiceJwt: createServiceJwtCheck(config.serviceJwtSecret, deps.seenServiceJwts, Date.now, config.previousServiceJwtSecret),
    adminTokens: config.adminTokens,
    adminFailures: deps.adminFailures,
    pageSignInFailures: deps.pageSignInFailures,
    pageSessionKeys: deps.pageSessionKeys,
    accessStore: deps.watch.store,
    store: createUserStore(deps.pool, deps.accounts, kept),
    operator: createOperatorStore(deps.pool, deps.accounts),
    catalogue: createCatalogueReads(deps.pool, kept),
    balances: createBalanceReads(deps.pool, kept),
    ledger: createUsageLedgerReads(deps.pool),
    creditHistory: createCreditHistoryReads(deps.pool),
    recorder: usageRecorder(deps, config, usageRegistry),
    reservations: createReservations(createReservationStore(deps.pool, deps.accounts)),
    webhooks: createWebhookStore(deps.pool),
    webhookTargets: deps.webhooks,
    webhookTests: deps.webhookTests,
    now: () => new Date(),
    accountPageAuthUrl: deps.accountPageAuthUrl,
    topUpUrl: config.topUpUrl,
    brandName: config.brandName,
    logger: deps.logger,
    document: adminOpenapi,
  };
}

/**
 * The user service's HTTP app; no I/O until requests arrive. With USER_INTERNAL_PORT the
 * internal usage API is an app of its own (`internal`, served on that port only), so that a
 * NetworkPolicy can admit product apps to it and to nothing else (a policy cannot tell paths apart).
 */
export function createApp(
  deps: UserDeps,
  config: UserConfig,
): { app: Express; health: Health; internal?: Express; metricsListener: MetricsListener | undefined } {
  // RabbitMQ is not a readiness dependency: balance changes wait in the outbox while it is down,
  // and taking the service out of rotation would stop the usage API for no gain. The backlog
  // shows as the outbox_pending_events metric instead.
  const health = new Health({ postgres: pingPostgres(deps.pool), redis: () => deps.watch.check() });
  const kernel = {
    service: 'user',
    logger: deps.logger,
    health,
    openapi,
    trustProxy: config.trustProxy,
    metricsToken: config.metricsToken,
    metricsPort: config.metricsPort,
    largeJsonBodies: largeJsonBodies(userRoutes),
  };
  // The endpoints browsers may call from any origin (CONTRACT §2): the routes declared `cors`;
  // the admin and internal APIs are not.
  const http = createHttpApp({ ...kernel, publicEndpoints: corsEndpoints(userRoutes) });
  // With METRICS_PORT, one registry for both: the metrics listener serves the usage API's counts too.
  const internal =
    config.internalPort === undefined
      ? undefined
      : createHttpApp({ ...kernel, metrics: config.metricsPort === undefined ? undefined : http.metrics });
  new Gauge({
    name: 'outbox_pending_events',
    help: 'balance.changed events written but not yet confirmed by RabbitMQ',
    registers: [http.metrics.registry],
    async collect() {
      this.set(await countPendingEvents(deps.pool));
    },
  });
  // The internal usage API first: the busiest routes (every product call) match before the others are tried.
  mountRouteGroups(
    { app: http.app, internal: internal?.app },
    userRouteTable,
    routeUses(deps, config, (internal ?? http).metrics.registry),
  );
  return { app: http.finish(), health, metricsListener: http.metricsListener(), ...(internal ? { internal: internal.finish() } : {}) };
}
