/** The kernel's operations endpoints on an app (CONTRACT §8; declared in operations-routes.ts), after the service's routes. */
import type { Express } from 'express';
import { runningRelease, type Health, type HttpMetrics } from '@platform/runtime';
import type { Envelope } from '@platform/wire';
import { mountDocsPage } from './docs-page';
import { metricsGuard } from './metrics-guard';
import { routeEdge } from './route-edge';

/**
 * Where an app serves `/metrics`: `here`, beside the other operations endpoints (the default);
 * `apart`, not at all (404: METRICS_PORT serves it); `only`, and nothing else (the METRICS_PORT
 * listener, so that a NetworkPolicy admitting monitoring to it admits it to nothing more).
 */
/** METRICS_PORT's listener: the port and the app that serves `/metrics` alone (runtime's `serve({metrics})`). */
export interface MetricsListener {
  port: number;
  app: Express;
}

export type MetricsPlacement = 'here' | 'apart' | 'only';

export interface OperationsOptions {
  service: string;
  health: Health;
  openapi: Record<string, unknown>;
  metrics: HttpMetrics;
  metricsToken: string | undefined;
  metricsAt: MetricsPlacement;
  envelope: Envelope;
}

export function mountOperations(app: Express, options: OperationsOptions): void {
  const { metrics } = options;
  if (options.metricsAt !== 'apart') {
    const edge = routeEdge(options.envelope, { xml: false, challenge: false });
    app.get('/metrics', metricsGuard(options.metricsToken, edge), async (_req, res) => {
      res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
  }
  if (options.metricsAt === 'only') return;
  app.get('/health/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/health/ready', async (_req, res) => {
    const report = await options.health.report();
    res.status(report.ready ? 200 : 503).json(report.body);
  });
  app.get('/openapi.json', (_req, res) => {
    res.json(options.openapi);
  });
  app.get('/version', (_req, res) => {
    res.json(runningRelease());
  });
  mountDocsPage(app, options.service);
}
