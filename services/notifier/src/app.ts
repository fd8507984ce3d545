import type { Express } from 'express';
import { createHttpApp } from '@platform/kernel';
import { Health } from '@platform/runtime';
import { pingPostgres } from '@platform/db';
import type { NotifierDeps } from './deps';
import { createNotifierMetrics, type NotifierMetrics } from './metrics';
import { openapi } from './openapi';

/** What readiness needs to know about the consumer, which starts after the app exists. */
export interface ConsumerProbe {
  isConsuming(): boolean;
  /** Messages in the consumer's dead-letter queue (rejects while it cannot tell). */
  deadLetterDepth(): Promise<number>;
}

/** The notifier's HTTP side: health, metrics, OpenAPI. No I/O here. */
export function createApp(
  deps: NotifierDeps,
  consumer: ConsumerProbe,
  options: { metricsToken?: string | undefined } = {},
): { app: Express; health: Health; metrics: NotifierMetrics } {
  const health = new Health({
    postgres: pingPostgres(deps.pool),
    rabbitmq: () => deps.bus.ping(),
    consumer: () => (consumer.isConsuming() ? Promise.resolve() : Promise.reject(new Error('not consuming'))),
  });
  const http = createHttpApp({ service: 'notifier', logger: deps.logger, health, openapi, metricsToken: options.metricsToken });
  const metrics: NotifierMetrics = createNotifierMetrics(http.metrics.registry, () => consumer.deadLetterDepth());
  return { app: http.finish(), health, metrics };
}
