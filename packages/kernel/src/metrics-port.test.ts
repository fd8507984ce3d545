/** METRICS_PORT in the kernel: `/metrics` leaves the service's app for an app that serves it alone. */
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { Health, createLogger } from '@platform/runtime';
import { createHttpApp } from './http';

const METRICS_TOKEN = 'metrics-token-for-the-port-test';

function build(options: { metricsPort?: number; metricsToken?: string }) {
  const http = createHttpApp({
    service: 'metrics-port-test',
    logger: createLogger({ service: 'metrics-port-test', level: 'error', stream: new PassThrough().resume() }),
    health: new Health({}),
    openapi: { openapi: '3.1.0' },
    metricsPort: options.metricsPort,
    metricsToken: options.metricsToken,
  });
  http.app.get('/admin/v1/thing', (_req, res) => {
    res.json({ secret: 'admin data' });
  });
  return { app: http.finish(), listener: http.metricsListener() };
}

/** The metrics listener's app (the test fails here when there is none). */
function metricsAppOf(listener: ReturnType<typeof build>['listener']) {
  if (listener === undefined) throw new Error('no metrics listener');
  return listener.app;
}

describe('METRICS_PORT in the kernel', () => {
  it('when no metrics port is set, then /metrics stays on the service app and there is no metrics listener', async () => {
    const { app, listener } = build({});
    expect((await request(app).get('/metrics')).status).toBe(200);
    expect(listener).toBeUndefined();
  });

  it('when a metrics port is set, then the service app answers 404 for /metrics and the listener app serves it, with its counts', async () => {
    const { app, listener } = build({ metricsPort: 9464 });
    const main = await request(app).get('/metrics');
    expect({ status: main.status, body: main.body }).toEqual({ status: 404, body: { code: 404, messages: 'Not found.' } });
    expect(listener?.port).toBe(9464);
    const served = await request(metricsAppOf(listener)).get('/metrics');
    expect(served.status).toBe(200);
    // One registry: the service app's 404 above is counted where the metrics port serves it.
    expect(served.text).toMatch(/http_requests_total\{[^}]*status="404"[^}]*\} 1/);
  });

  it.each(['/admin/v1/thing', '/health/ready', '/openapi.json', '/docs', '/version'])(
    'when the metrics listener is asked %s, then 404: it serves /metrics and nothing else',
    async (path) => {
      const { listener } = build({ metricsPort: 9464 });
      const res = await request(metricsAppOf(listener)).get(path);
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { code: 404, messages: 'Not found.' } });
    },
  );

  it('when METRICS_TOKEN is set too, then the metrics listener asks for it as the service port did', async () => {
    const { listener } = build({ metricsPort: 9464, metricsToken: METRICS_TOKEN });
    const refused = await request(metricsAppOf(listener)).get('/metrics');
    expect({ status: refused.status, reason: refused.headers['x-refusal-reason'] }).toEqual({ status: 401, reason: 'missing_credential' });
    expect((await request(metricsAppOf(listener)).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`)).status).toBe(200);
  });
});
