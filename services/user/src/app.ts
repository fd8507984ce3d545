import type { Express, Router } from 'express';
import { Counter, Gauge, type Registry } from 'prom-client';
import { ConfigError, Health } from '@platform/runtime';
import { corsEndpoints, createHttpApp, type MetricsListener } from '@platform/kernel';
import { pingPostgres } from '@platform/db';
import type { UserConfig } from './config';
import type { UserDeps } from './deps';
import { createBatchCommit } from './domain/commit-usage-batch';
import { createRecentAnswers } from './speed';
import { createUsageRecorder, type UsageRecorder } from './domain/usage';
import { createDebitBatcher } from './domain/usage-batcher';
import { adminOpenapi, openapi, userRoutes } from './openapi';
import { accountPageDir, accountPageRoutes } from './routes/account-page.routes';
import { adminConsoleDir, adminConsoleRoutes } from './routes/admin-console.routes';
import { accountSessionRoutes } from './routes/account-session.routes';
import { adminRoutes } from './routes/admin.routes';
import { apiKeyRoutes } from './routes/api-key.routes';
import { balanceRoutes } from './routes/balance.routes';
import { notificationSettingsRoutes } from './routes/notification-settings.routes';
import { usageHistoryRoutes } from './routes/usage-history.routes';
import { creditHistoryRoutes } from './routes/credit-history.routes';
import { createCreditHistoryReads } from './store/credit-history';
import { webhookDeliveriesRoutes } from './routes/webhook-deliveries.routes';
import { usageRoutes } from './routes/usage.routes';
import { USAGE_BATCH_BODY_LIMIT, USAGE_BATCH_PATH, usageBatchRoutes } from './routes/usage-batch.routes';
import { reservationRoutes } from './routes/reservations.routes';
import { createReservations } from './domain/reservations';
import { createReservationStore } from './store/reservations';
import { createBalanceReads } from './store/balances';
import { createCatalogueReads, keptCatalogue } from './store/catalogue';
import { countPendingEvents } from './store/outbox';
import { createUsageBatchStore } from './store/usage-batch';
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
 * The usage API's debits: batched (group commit) on the usage connections, with the balance hook
 * (the side effects of the credit write path: credit bits, and the relay's wake-up after commit).
 */
function usageRecorder(deps: UserDeps, config: UserConfig, registry: Registry): UsageRecorder {
  const commit = createBatchCommit(
    createUsageBatchStore(deps.usagePool, deps.access.pauses, createTestFault(config.testFault)),
    deps.balanceHook,
  );
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
 * Every router the service mounts (further APIs add theirs here); each gets the deps and the
 * domain's ports it calls. The internal usage API apart: it may listen on a port of its own.
 */
function routers(deps: UserDeps, config: UserConfig, usageRegistry: Registry): { usage: Router[]; others: Router[] } {
  if (config.adminTokens.length === 0) throw new ConfigError('invalid configuration: ADMIN_TOKEN: Required');
  if (config.serviceJwtSecret === undefined) throw new ConfigError('invalid configuration: SERVICE_JWT_SECRET: Required');
  const kept = keptCatalogue();
  const store = createUserStore(deps.pool, deps.accounts, kept);
  const catalogue = createCatalogueReads(deps.pool, kept);
  const recorder = usageRecorder(deps, config, usageRegistry);
  const usage = [
    usageRoutes(deps, recorder, config.serviceJwtSecret, catalogue, config.previousServiceJwtSecret),
    usageBatchRoutes(deps, recorder, config.serviceJwtSecret, catalogue, config.previousServiceJwtSecret),
    reservationRoutes(
      deps,
      createReservations(createReservationStore(deps.pool, deps.accounts)),
      config.serviceJwtSecret,
      catalogue,
      config.previousServiceJwtSecret,
    ),
  ];
  const webhooks = createWebhookStore(deps.pool);
  const others = [
    balanceRoutes(deps, { balances: createBalanceReads(deps.pool, kept), catalogue }),
    apiKeyRoutes(deps, store),
    notificationSettingsRoutes(deps, store, webhooks),
    webhookDeliveriesRoutes(deps, webhooks),
    adminRoutes(
      {
        store,
        operator: createOperatorStore(deps.pool, deps.accounts),
        catalogue,
        ledger: createUsageLedgerReads(deps.pool),
        webhooks,
        brandName: config.brandName,
        document: adminOpenapi,
      },
      config.adminTokens,
      deps.adminFailures,
    ),
    usageHistoryRoutes(deps, { catalogue, ledger: createUsageLedgerReads(deps.pool) }),
    creditHistoryRoutes(deps, createCreditHistoryReads(deps.pool), catalogue),
    accountSessionRoutes(deps, store),
    accountPageRoutes({
      dir: accountPageDir(),
      authUrl: deps.accountPageAuthUrl,
      topUpUrl: config.topUpUrl,
      brandName: config.brandName,
      products: async () => (await catalogue.current()).products,
      logger: deps.logger,
    }),
    adminConsoleRoutes(adminConsoleDir(), deps.logger),
  ];
  return { usage, others };
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
    largeJsonBodies: { [USAGE_BATCH_PATH]: USAGE_BATCH_BODY_LIMIT },
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
  const { usage, others } = routers(deps, config, (internal ?? http).metrics.registry);
  // First: the busiest route (every product call) matches before the others are tried.
  for (const router of usage) (internal ?? http).app.use(router);
  for (const router of others) http.app.use(router);
  return { app: http.finish(), health, metricsListener: http.metricsListener(), ...(internal ? { internal: internal.finish() } : {}) };
}
