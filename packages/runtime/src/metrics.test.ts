import { Health } from './health';
import { createHttpMetrics, registerReadiness } from './metrics';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format's sample lines. */
function samples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`unparsable metric line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_]+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]));
      return { name: match[1] ?? '', labels, value: Number(match[3]) };
    });
}

function find(text: string, name: string, labels: Record<string, string>): Sample[] {
  return samples(text).filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

describe('createHttpMetrics', () => {
  const labels = { method: 'GET', route: '/user-service/account-balance', status: '200' };

  it('when a request is recorded, then http_requests_total counts it under method, route, status and service', async () => {
    const metrics = createHttpMetrics('user');
    metrics.requests.inc(labels);
    metrics.requests.inc(labels);
    const text = await metrics.registry.metrics();
    expect(find(text, 'http_requests_total', { ...labels, service: 'user' })).toEqual([
      { name: 'http_requests_total', labels: { ...labels, service: 'user' }, value: 2 },
    ]);
    expect(text).toContain('# TYPE http_requests_total counter');
  });

  it('when a duration is observed, then http_request_duration_seconds is a histogram with the same labels', async () => {
    const metrics = createHttpMetrics('user');
    metrics.duration.observe(labels, 0.003);
    const text = await metrics.registry.metrics();
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(find(text, 'http_request_duration_seconds_count', { ...labels, service: 'user' })).toEqual([
      expect.objectContaining({ value: 1 }),
    ]);
    expect(find(text, 'http_request_duration_seconds_bucket', { ...labels, le: '0.0025' })).toEqual([
      expect.objectContaining({ value: 0 }),
    ]);
    expect(find(text, 'http_request_duration_seconds_bucket', { ...labels, le: '0.005' })).toEqual([expect.objectContaining({ value: 1 })]);
  });

  it('when two services share a process, then each has its own registry', async () => {
    const auth = createHttpMetrics('auth');
    const user = createHttpMetrics('user');
    auth.requests.inc({ method: 'POST', route: '/oauth/token', status: '200' });
    expect(await user.registry.metrics()).not.toContain('/oauth/token');
  });

  it('includes the default process metrics', async () => {
    expect(await createHttpMetrics('auth').registry.metrics()).toContain('process_cpu_user_seconds_total');
  });
});

describe('registerReadiness', () => {
  it('when every check passes, then service_ready is 1 and no dependency error is counted', async () => {
    const metrics = createHttpMetrics('user');
    registerReadiness(metrics, new Health({ postgres: () => Promise.resolve(), redis: () => Promise.resolve() }));
    const text = await metrics.registry.metrics();
    expect(find(text, 'service_ready', { service: 'user' })).toEqual([expect.objectContaining({ value: 1 })]);
    expect(find(text, 'dependency_errors_total', {})).toEqual([]);
  });

  it('when a check fails, then service_ready is 0 and dependency_errors_total counts that dependency per failure', async () => {
    const metrics = createHttpMetrics('auth');
    const health = new Health({ postgres: () => Promise.resolve(), redis: () => Promise.reject(new Error('ECONNREFUSED')) });
    registerReadiness(metrics, health);
    await health.report();
    // A scrape runs the checks too (one more failure); what it counts shows from the next scrape on.
    await metrics.registry.metrics();
    const text = await metrics.registry.metrics();
    expect(find(text, 'service_ready', { service: 'auth' })).toEqual([expect.objectContaining({ value: 0 })]);
    expect(find(text, 'dependency_errors_total', { dependency: 'redis' })).toEqual([expect.objectContaining({ value: 2 })]);
    expect(find(text, 'dependency_errors_total', { dependency: 'postgres' })).toEqual([]);
  });

  it('when the service is draining, then service_ready is 0 without any dependency error', async () => {
    const metrics = createHttpMetrics('categorization');
    const health = new Health({ postgres: () => Promise.resolve() });
    registerReadiness(metrics, health);
    health.markDraining();
    const text = await metrics.registry.metrics();
    expect(find(text, 'service_ready', {})).toEqual([expect.objectContaining({ value: 0 })]);
    expect(find(text, 'dependency_errors_total', {})).toEqual([]);
  });
});
