import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** One Prometheus registry per service instance (no global registry: several may share a process). */
export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
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
  };
}
