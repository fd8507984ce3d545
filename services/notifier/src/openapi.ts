/** OpenAPI 3.1 of the notifier: it has no public API, only operations endpoints (CONTRACT §8). */
export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'Notifier',
    version: '0.1.0',
    description:
      'Consumes balance.changed events (queue notifier.balance-changed) and sends low- and zero-balance alert e-mails. HTTP serves operations endpoints only.',
  },
  paths: {
    '/health/live': {
      get: { summary: 'Liveness (touches no dependency)', responses: { '200': { description: '{"status":"ok"}' } } },
    },
    '/health/ready': {
      get: {
        summary: 'Readiness: Postgres, RabbitMQ and the consumer',
        responses: { '200': { description: '{"status":"ready"}' }, '503': { description: 'Not ready or draining, with each check' } },
      },
    },
    '/metrics': {
      get: { summary: 'Prometheus metrics', responses: { '200': { description: 'text/plain; version=0.0.4' } } },
    },
    '/openapi.json': {
      get: { summary: 'This document', responses: { '200': { description: 'OpenAPI 3.1' } } },
    },
  },
} as const;
