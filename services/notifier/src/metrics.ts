import { Counter, Gauge, type Registry } from 'prom-client';

/** Notifier counters, registered on the service's HTTP metrics registry. */
export interface NotifierMetrics {
  events: Counter<'result'>;
  emails: Counter<'kind' | 'result'>;
  webhooks: Counter<'result'>;
}

/**
 * Notifier metrics on the service's registry; `deadLetterDepth` is asked at each scrape (the
 * gauge keeps its last value while RabbitMQ is unreachable).
 */
export function createNotifierMetrics(registry: Registry, deadLetterDepth: () => Promise<number>): NotifierMetrics {
  new Gauge({
    name: 'notifier_dead_letter_messages',
    help: 'Messages waiting in the dead-letter queue (poison balance.changed events)',
    registers: [registry],
    async collect() {
      try {
        this.set(await deadLetterDepth());
      } catch {
        // Broker unreachable or consumer not attached yet: keep the last reading.
      }
    },
  });
  return {
    events: new Counter({
      name: 'notifier_events_total',
      help: 'balance.changed events handled, by result (processed, duplicate, poison, failed)',
      labelNames: ['result'],
      registers: [registry],
    }),
    emails: new Counter({
      name: 'notifier_emails_total',
      help: 'Alert e-mail send attempts, by kind (low, zero) and result (sent, failed)',
      labelNames: ['kind', 'result'],
      registers: [registry],
    }),
    webhooks: new Counter({
      name: 'notifier_webhooks_total',
      help: 'Balance webhook delivery attempts, by result (delivered, failed, given_up)',
      labelNames: ['result'],
      registers: [registry],
    }),
  };
}
