import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Health } from './health';

/** One Prometheus registry per service instance (no global registry: several may share a process). */
export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
  /** Failed readiness checks by dependency (postgres, redis, rabbitmq, …), counted where /health/ready runs them. */
  dependencyErrors: Counter<'dependency'>;
}

export function createHttpMetrics(service: string): HttpMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  return {
    registry,
    requests: new Counter({ name: 'http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] }),
    duration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency',
      labelNames,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    dependencyErrors: new Counter({
      name: 'dependency_errors_total',
      help: 'Failed readiness checks, by dependency (postgres, redis, rabbitmq, consumer)',
      labelNames: ['dependency'],
      registers: [registry],
    }),
  };
}

/**
 * `service_ready`: 1 when /health/ready would answer 200, else 0, asked at each scrape (so the
 * readiness checks, and dependency_errors_total, run at least as often as Prometheus scrapes).
 */
export function registerReadiness(metrics: HttpMetrics, health: Health): void {
  health.onCheckFailed((check) => metrics.dependencyErrors.inc({ dependency: check }));
  new Gauge({
    name: 'service_ready',
    help: 'Whether the service is ready (1) or not (0: a dependency check failed, or it is draining)',
    registers: [metrics.registry],
    async collect() {
      this.set((await health.report()).ready ? 1 : 0);
    },
  });
}
