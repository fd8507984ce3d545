/** The kernel's operations endpoints: health, metrics, the OpenAPI document, the release. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { SERVICE, JSON_TYPE, buildApp, getFresh, metricLines } from './kernel-app';

describe('health', () => {
  it('when /health/live is asked, then 200 {"status":"ok"} without touching dependencies', async () => {
    const check = jest.fn(() => Promise.reject(new Error('down')));
    const { app } = buildApp({ redis: check });
    const response = await request(app).get('/health/live');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expect(response.body).toEqual({ status: 'ok' });
    expect(check).not.toHaveBeenCalled();
  });

  it('when every check passes, then /health/ready is 200 {"status":"ready"}', async () => {
    const { app } = buildApp({ postgres: () => Promise.resolve() });
    const response = await request(app).get('/health/ready');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ready' });
  });

  it('when a check fails, then /health/ready is 503 with each check state', async () => {
    const { app } = buildApp({ postgres: () => Promise.resolve(), redis: () => Promise.reject(new Error('ECONNREFUSED')) });
    const response = await request(app).get('/health/ready');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: 'not ready', checks: { postgres: 'ok', redis: 'failed: ECONNREFUSED' } });
  });

  it('when a check throws synchronously, then /health/ready is 503, not 500', async () => {
    const { app } = buildApp({
      broken: () => {
        throw new Error('sync');
      },
    });
    const response = await request(app).get('/health/ready');
    expect(response.status).toBe(503);
  });

  it('when the service is draining, then /health/ready is 503 while /health/live stays 200', async () => {
    const { app, health } = buildApp({ postgres: () => Promise.resolve() });
    health.markDraining();
    const ready = await request(app).get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'draining', checks: { postgres: 'ok' } });
    expect((await request(app).get('/health/live')).status).toBe(200);
  });
});

describe('metrics', () => {
  it('when requests were answered, then /metrics counts them by method, route template and status', async () => {
    const { app } = buildApp();
    await request(app).get('/echo');
    await request(app).get('/echo');
    await request(app).get('/user-service/accounts/42');
    const response = await request(app).get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(metricLines(response.text, 'http_requests_total', { method: 'GET', route: '/echo', status: '200' })).toEqual([
      expect.stringMatching(/ 2$/),
    ]);
    expect(metricLines(response.text, 'http_requests_total', { route: '/user-service/accounts/:id', status: '200' })).toHaveLength(1);
    expect(response.text).not.toContain('/user-service/accounts/42');
  });

  it('when requests were answered, then the duration histogram has the same labels', async () => {
    const { app } = buildApp();
    await request(app).post('/echo').send({ a: '1' });
    const response = await request(app).get('/metrics');
    expect(response.text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(metricLines(response.text, 'http_request_duration_seconds_count', { method: 'POST', route: '/echo', status: '200' })).toEqual([
      expect.stringMatching(/ 1$/),
    ]);
    expect(
      metricLines(response.text, 'http_request_duration_seconds_bucket', { method: 'POST', route: '/echo', status: '200', le: '+Inf' }),
    ).toHaveLength(1);
  });

  it('when a route in a mounted router fails, then the label is still the full template', async () => {
    const { app } = buildApp();
    await request(app).get('/user-service/account-balance');
    const response = await request(app).get('/metrics');
    expect(
      metricLines(response.text, 'http_requests_total', { method: 'GET', route: '/user-service/account-balance', status: '401' }),
    ).toHaveLength(1);
  });

  it('when a route is served at two paths, then the label is the template that matched', async () => {
    const { app } = buildApp();
    await request(app).get('/service/account-balance');
    await request(app).get('/user-service/legacy-balance');
    const response = await request(app).get('/metrics');
    expect(metricLines(response.text, 'http_requests_total', { route: '/service/account-balance', status: '200' })).toHaveLength(1);
    expect(metricLines(response.text, 'http_requests_total', { route: '/user-service/legacy-balance', status: '200' })).toHaveLength(1);
  });

  it('when no route matched, then the label is "unmatched" (not the raw path)', async () => {
    const { app } = buildApp();
    await request(app).get('/random/garbage/path');
    const response = await request(app).get('/metrics');
    expect(metricLines(response.text, 'http_requests_total', { route: 'unmatched', status: '404' })).toHaveLength(1);
    expect(response.text).not.toContain('/random/garbage/path');
  });

  it('when errors were answered, then their status is the numeric code', async () => {
    const { app } = buildApp();
    await request(app).get('/boom');
    await request(app).post('/echo').type('json').send('{');
    const response = await request(app).get('/metrics');
    expect(metricLines(response.text, 'http_requests_total', { route: '/boom', status: '500' })).toHaveLength(1);
    expect(metricLines(response.text, 'http_requests_total', { method: 'POST', status: '400' })).toHaveLength(1);
  });

  it('when two apps live in one process, then their metrics do not mix', async () => {
    const first = buildApp();
    const second = buildApp();
    await request(first.app).get('/echo');
    const response = await request(second.app).get('/metrics');
    expect(metricLines(response.text, 'http_requests_total', { route: '/echo' })).toEqual([]);
  });
});

describe('openapi', () => {
  it('when /openapi.json is asked, then the service document is served as JSON', async () => {
    const response = await getFresh('/openapi.json');
    expect({ status: response.status, type: response.headers['content-type'] }).toEqual({ status: 200, type: JSON_TYPE });
    expect(response.body).toEqual({ openapi: '3.1.0', info: { title: SERVICE, version: '1' }, paths: {} });
  });
});

describe('version', () => {
  it('when /version is asked, then the release’s version (the packages’ own) and the checkout’s commit', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/version');
    const manifest = JSON.parse(readFileSync(path.join(__dirname, '../package.json'), 'utf8')) as { version: string };
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: __dirname }).toString().trim();
    expect({ status: response.status, type: response.headers['content-type'], body: response.body }).toEqual({
      status: 200,
      type: JSON_TYPE,
      body: { version: manifest.version, commit: head },
    });
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
