import type { Express } from 'express';
import { createHttpApp, mountRouteGroups, type MetricsListener } from '@platform/kernel';
import { Health } from '@platform/runtime';
import { pingPostgres } from '@platform/db';
import type { NotifierConfig } from './config';
import type { NotifierDeps } from './deps';
import { createNotifierMetrics, type NotifierMetrics } from './metrics';
import { openapi } from './openapi';
import { notifierRouteTable } from './routes';

/** The notifier's HTTP side: health, metrics, OpenAPI. No I/O here. */
export function createApp(
  deps: NotifierDeps,
  config: Pick<NotifierConfig, 'metricsToken' | 'metricsPort'>,
): { app: Express; health: Health; metrics: NotifierMetrics; metricsListener: MetricsListener | undefined } {
  const { consumer } = deps;
  const health = new Health({
    postgres: pingPostgres(deps.pool),
    rabbitmq: () => deps.bus.ping(),
    consumer: () => (consumer.isConsuming() ? Promise.resolve() : Promise.reject(new Error('not consuming'))),
  });
  const http = createHttpApp({
    service: 'notifier',
    logger: deps.logger,
    health,
    openapi,
    metricsToken: config.metricsToken,
    metricsPort: config.metricsPort,
  });
  mountRouteGroups({ app: http.app }, notifierRouteTable, {});
  const metrics: NotifierMetrics = createNotifierMetrics(http.metrics.registry, () => consumer.deadLetterDepth());
  return { app: http.finish(), health, metrics, metricsListener: http.metricsListener() };
}
