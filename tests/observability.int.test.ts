/**
 * The Grafana dashboard and the alert rules query only metrics that the services really expose:
 * the four services run in-process on the real Postgres, Redis, RabbitMQ and an SMTP capture,
 * serve a token, a debit and a poison event, and their /metrics output is compared with every
 * metric name in deploy/grafana/dashboards/*.json and deploy/prometheus/alerts.yml.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { parse } from 'yaml';
import { signServiceJwt } from '@platform/credentials';
import { createAmqpEventBus, type EventBus } from '@platform/events';
import { accountWithToken, eventually, silentLogger, testServers, uniqueId, type SmtpCapture } from '@platform/testing';
import { startPlatform, type Platform } from '@platform/testing/platform';
import { metricNames, queriedMetrics, type Dashboard } from './promql-names';

const ROOT = path.resolve(__dirname, '..');
const ADMIN_TOKEN = 'observability-test-admin-token-0123456789';
const SERVICE_JWT_SECRET = 'observability-test-service-jwt-secret-0123456789';
/** Series Prometheus makes itself for every scrape target. */
const PROMETHEUS_SERIES = new Set(['up']);

const dashboards = (): Array<{ file: string; dashboard: Dashboard }> => {
  const folder = path.join(ROOT, 'deploy/grafana/dashboards');
  return readdirSync(folder)
    .filter((file) => file.endsWith('.json'))
    .map((file) => ({ file, dashboard: JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as Dashboard }));
};
const alertExpressions = (): string[] => {
  const rules = parse(readFileSync(path.join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8')) as {
    groups: Array<{ rules: Array<{ expr: string }> }>;
  };
  return rules.groups.flatMap((group) => group.rules.map((rule) => rule.expr));
};

describe('dashboard and alert rules against the services’ real /metrics', () => {
  let platform: Platform;
  let smtp: SmtpCapture;
  let publisher: EventBus;
  const urls: Record<string, string> = {};
  const exposition: Record<string, string> = {};

  beforeAll(async () => {
    const logger = silentLogger();
    platform = await startPlatform({ name: 'observability', env: { ADMIN_TOKEN, SERVICE_JWT_SECRET, OUTBOX_POLL_MS: '100' } });
    smtp = platform.smtp as SmtpCapture;
    for (const [name, service] of Object.entries(platform.services)) urls[name] = service.url;
    const exchange = platform.exchange;
    publisher = createAmqpEventBus({ url: testServers.amqpUrl, exchange, logger, connectionName: 'observability-test' });

    // One of each thing the dashboard counts: a token, a debit, a category list, a poison event.
    const { accessToken } = await accountWithToken({ user: urls.user as string, auth: urls.auth as string }, ADMIN_TOKEN, {
      email: `${uniqueId('obs')}@example.test`,
      credits: { 1: 20 },
    });
    const jwt = signServiceJwt({ secret: SERVICE_JWT_SECRET, issuer: 'whois-api', audience: 'user', ttlSeconds: 60 });
    const debited = await request(urls.user as string)
      .post('/internal/v1/usage')
      .set('Authorization', `Bearer ${jwt}`)
      .send({ credential: accessToken, productId: 1, units: 15, requestId: uniqueId('obs-debit') });
    expect(debited.status).toBe(200);
    expect((await request(urls.categorization as string).get('/api/v2/categories')).status).toBe(200);
    await publisher.publish('balance.changed', {
      id: randomUUID(),
      type: 'balance.changed',
      accountId: 2_000_000_000, // no such account: the notifier dead-letters it
      productId: 1,
      previousCredits: 20,
      credits: 5,
      cause: 'usage',
      occurredAt: new Date().toISOString(),
    });
    // The low-balance e-mail of the debit (20 → 5 crosses the default threshold 10) and the dead letter.
    await eventually(() => (smtp.messages.length > 0 ? true : undefined), 20_000, 'the low-balance e-mail');
    await eventually(
      async () =>
        /^notifier_dead_letter_messages\{[^}]*\} 1$/m.test((await request(urls.notifier as string).get('/metrics')).text)
          ? true
          : undefined,
      20_000,
      'the poison event in the dead-letter queue',
    );
    for (const [name, url] of Object.entries(urls)) {
      const response = await request(url).get('/metrics');
      expect(response.status).toBe(200);
      exposition[name] = response.text;
    }
  }, 120_000);

  afterAll(async () => {
    await publisher?.close();
    await platform?.stop();
  });

  const exposed = (): Set<string> =>
    new Set([...Object.values(exposition).flatMap((text) => [...metricNames(text)]), ...PROMETHEUS_SERIES]);

  it('when the dashboard is parsed, then it has a panel for each thing the operators watch, and every metric it queries is exposed', () => {
    const all = dashboards();
    expect(all.map((entry) => entry.file)).toEqual(['account-access-platform.json']);
    const queried = queriedMetrics(
      all.flatMap((entry) => entry.dashboard.panels.flatMap((panel) => panel.targets ?? []).map((t) => t.expr)),
    );
    for (const metric of [
      'http_requests_total',
      'http_request_duration_seconds_bucket',
      'tokens_issued_total',
      'usage_debits_total',
      'outbox_pending_events',
      'notifier_dead_letter_messages',
      'notifier_emails_total',
      'dependency_errors_total',
    ])
      expect(queried).toContain(metric);
    const known = exposed();
    expect([...queried].filter((metric) => !known.has(metric))).toEqual([]);
  });

  it('when the alert rules are parsed, then every metric they query is exposed', () => {
    const queried = queriedMetrics(alertExpressions());
    expect(queried.size).toBeGreaterThanOrEqual(5);
    const known = exposed();
    expect([...queried].filter((metric) => !known.has(metric))).toEqual([]);
  });

  it('when a token was issued, a debit made and an event dead-lettered, then the counters show each once', () => {
    expect(exposition.auth).toMatch(/^tokens_issued_total\{service="auth"\} 1$/m);
    expect(exposition.user).toMatch(/^usage_debits_total\{outcome="debited",service="user"\} 1$/m);
    expect(exposition.user).toMatch(/^usage_credits_debited_total\{service="user"\} 15$/m);
    expect(exposition.notifier).toMatch(/^notifier_dead_letter_messages\{service="notifier"\} 1$/m);
    expect(exposition.notifier).toMatch(/^notifier_emails_total\{kind="low",result="sent",service="notifier"\} 1$/m);
    for (const name of Object.keys(urls)) expect(exposition[name]).toMatch(new RegExp(`^service_ready\\{service="${name}"\\} 1$`, 'm'));
  });
});
