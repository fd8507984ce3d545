/**
 * RabbitMQ down for 30 s while debits continue. The user service's relay and the notifier both
 * reach RabbitMQ through a TCP proxy, which is cut; an observer queue bound straight to the
 * broker records what the exchange delivers. After the broker returns: every balance event
 * arrives, in order, and there is exactly one e-mail per crossing.
 */
import { randomUUID } from 'node:crypto';
import { signServiceJwt } from '@platform/credentials';
import { createAmqpEventBus, type BalanceChanged, type EventBus } from '@platform/events';
import { deleteTopology, eventually, silentLogger, startTcpProxy, testServers, uniqueId, type TcpProxy } from '@platform/testing';
import { ADMIN_TOKEN, SERVICE_JWT_SECRET } from '@platform/user/testing';
import { startAlerting, type Alerting } from '../support/alerting';
import { verifyLedgerAfterAll } from './ledger-check';

const OUTAGE_MS = 30_000;

describe('RabbitMQ down for 30 s while debits continue', () => {
  let alerting: Alerting;
  let proxy: TcpProxy;
  let observer: EventBus;
  const observed: BalanceChanged[] = [];
  let observerQueue: string;

  beforeAll(async () => {
    proxy = await startTcpProxy(Number(new URL(testServers.amqpUrl).port || 5672));
    // The user service and the notifier reach RabbitMQ through the proxy, the observer straight.
    alerting = await startAlerting({
      name: 'rabbitdown',
      userAmqpUrl: proxy.url(testServers.amqpUrl),
      notifierAmqpUrl: proxy.url(testServers.amqpUrl),
      userEnv: { OUTBOX_RETRY_INITIAL_MS: '200', OUTBOX_RETRY_MAX_MS: '1000' },
      notifierEnv: { NOTIFIER_MAIL_RETRY_INITIAL_MS: '100', NOTIFIER_MAIL_RETRY_MAX_MS: '500' },
    });
    observerQueue = `${alerting.exchange}.observer`;
    observer = createAmqpEventBus({ url: testServers.amqpUrl, exchange: alerting.exchange, logger: silentLogger() });
    await observer.consume(observerQueue, 'balance.changed', (event) => Promise.resolve(void observed.push(event)), { prefetch: 1 }).ready;
  }, 60_000);

  // Before the afterAll below drops the database: whatever the faults did, the ledger is exact.
  verifyLedgerAfterAll(() => alerting?.databaseUrl);

  afterAll(async () => {
    proxy?.restore();
    await observer?.close();
    await alerting?.stop();
    await proxy?.close();
    await deleteTopology(testServers.amqpUrl, { queues: [observerQueue, `${observerQueue}.dead`], exchanges: [] });
  });

  const debit = (apiKey: string, units: number) =>
    alerting.user.http
      .post('/internal/v1/usage')
      .set(
        'Authorization',
        `Bearer ${signServiceJwt({ issuer: 'fault-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 300 })}`,
      )
      .send({ credential: apiKey, productId: 1, units, requestId: randomUUID() });

  test('then after it returns every balance event arrives once in order, and exactly one low and one zero alert are mailed', async () => {
    const email = `${uniqueId('rabbitdown')}@example.test`;
    const created = await alerting.user.http
      .post('/admin/v1/accounts')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ email, credits: { 1: 30 } });
    expect(created.status).toBe(201);
    const { id: accountId, apiKey } = created.body as { id: number; apiKey: string };
    expect((await debit(apiKey, 5)).status).toBe(200); // 30 → 25, published before the outage
    await eventually(() => (observed.filter((event) => event.accountId === accountId).length === 2 ? true : undefined), 15_000);

    proxy.cut();
    const outageEnds = Date.now() + OUTAGE_MS;
    // 25 → 0 one credit at a time across the outage: crosses the threshold (10) and reaches 0.
    const answers: number[] = [];
    for (let index = 0; index < 25; index += 1) {
      answers.push((await debit(apiKey, 1)).status);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, (outageEnds - Date.now()) / (25 - index) - 50)));
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, outageEnds - Date.now())));
    expect(answers).toEqual(Array.from({ length: 25 }, () => 200));
    expect(alerting.smtp.messages).toHaveLength(0);
    proxy.restore();

    const expectedCredits = [30, 25, ...Array.from({ length: 25 }, (_unused, index) => 24 - index)];
    const arrived = await eventually(
      () => {
        const firstArrivals = new Map<string, BalanceChanged>();
        for (const event of observed) if (event.accountId === accountId && !firstArrivals.has(event.id)) firstArrivals.set(event.id, event);
        return firstArrivals.size === expectedCredits.length ? [...firstArrivals.values()] : undefined;
      },
      30_000,
      'every balance event after RabbitMQ returned',
    );
    expect(arrived.map((event) => event.credits)).toEqual(expectedCredits);
    for (let index = 1; index < arrived.length; index += 1) expect(arrived[index]?.previousCredits).toBe(arrived[index - 1]?.credits);

    const subjects = await eventually(
      () => {
        const mine = alerting.mailsTo(email).map((mail) => mail.subject ?? '');
        return mine.length >= 2 ? mine : undefined;
      },
      30_000,
      'the alerts after RabbitMQ returned',
    );
    await alerting.settled([accountId]);
    const final = alerting.mailsTo(email).map((mail) => mail.subject ?? '');
    expect(final.sort()).toEqual(['Low balance alert: WHOIS API has 9 credits left', 'Zero balance alert: WHOIS API has no credits left']);
    expect(subjects.length).toBe(2);
  }, 120_000);
});
