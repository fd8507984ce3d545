import { Counter, type Registry } from 'prom-client';

/** Notifier counters, registered on the service's HTTP metrics registry. */
export interface NotifierMetrics {
  events: Counter<'result'>;
  emails: Counter<'kind' | 'result'>;
}

export function createNotifierMetrics(registry: Registry): NotifierMetrics {
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
  };
}
