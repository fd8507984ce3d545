/**
 * CONTRACT §1, RabbitMQ over several nodes: AMQP_URL lists two "nodes" (two TCP proxies in front
 * of the shared broker). The user service's outbox relay and the notifier both start on the
 * first; it goes away while debits cross thresholds on many accounts. Both move to the second
 * without a restart, and every account gets exactly one low and one zero alert.
 */
import { randomUUID } from 'node:crypto';
import { signServiceJwt } from '@platform/credentials';
import {
  createPrivateDatabase,
  deleteKeys,
  deleteTopology,
  eventually,
  silentLogger,
  startSmtpCapture,
  startTcpProxy,
  testServers,
  uniqueId,
  type PrivateDatabase,
  type SmtpCapture,
  type TcpProxy,
} from '@platform/testing';
import { loadConfig as loadNotifierConfig, runNotifierService, type NotifierService } from '../../services/notifier/src';
import { ADMIN_TOKEN, SERVICE_JWT_SECRET, startHarness, testConfig, type Harness } from '../../services/user/test/harness';

const ACCOUNTS = 12;
const CREDITS = 20;

describe('the RabbitMQ node the relay and the notifier use goes away during a load that crosses thresholds', () => {
  let db: PrivateDatabase;
  let smtp: SmtpCapture;
  let nodes: TcpProxy[];
  let user: Harness;
  let notifier: NotifierService;
  const exchange = uniqueId('test.nodeloss.');
  const queue = `${exchange}.notifier`;
  const prefix = `test-user:${uniqueId('nodeloss')}:`;

  beforeAll(async () => {
    db = await createPrivateDatabase('nodeloss');
    smtp = await startSmtpCapture();
    const port = Number(new URL(testServers.amqpUrl).port || 5672);
    nodes = [await startTcpProxy(port), await startTcpProxy(port)];
    const amqpUrl = nodes.map((node) => node.url(testServers.amqpUrl)).join(',');
    user = await startHarness({
      eventBus: 'amqp',
      config: testConfig({
        DATABASE_URL: db.url,
        AMQP_URL: amqpUrl,
        BALANCE_EXCHANGE: exchange,
        REDIS_KEY_PREFIX: prefix,
        OUTBOX_POLL_MS: '100',
        OUTBOX_RETRY_INITIAL_MS: '100',
        OUTBOX_RETRY_MAX_MS: '500',
      }),
    });
    notifier = await runNotifierService({
      config: loadNotifierConfig({
        DATABASE_URL: db.url,
        AMQP_URL: amqpUrl,
        SMTP_URL: smtp.url,
        NOTIFIER_PORT: '0',
        BALANCE_EXCHANGE: exchange,
        NOTIFIER_QUEUE: queue,
        NOTIFIER_MAIL_POLL_MS: '100',
      }),
      logger: silentLogger(),
    });
    await notifier.consuming;
  }, 60_000);

  afterAll(async () => {
    await notifier?.stop();
    await deleteKeys(user.redis, prefix);
    await user?.stop();
    for (const node of nodes ?? []) await node.close();
    await smtp?.close();
    await deleteTopology(testServers.amqpUrl, { queues: [queue, `${queue}.dead`], exchanges: [exchange, `${exchange}.dlx`] });
    await db?.drop();
  });

  const jwt = signServiceJwt({ issuer: 'fault-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 300 });
  const debit = async (apiKey: string): Promise<number> =>
    (
      await user.http
        .post('/internal/v1/usage')
        .set('Authorization', `Bearer ${jwt}`)
        .send({ credential: apiKey, productId: 1, units: 1, requestId: randomUUID() })
    ).status;

  test('then both move to the other node, and every account gets one low and one zero alert, none twice', async () => {
    const accounts = await Promise.all(
      Array.from({ length: ACCOUNTS }, async () => {
        const email = `${uniqueId('nodeloss')}@example.test`;
        const created = await user.http
          .post('/admin/v1/accounts')
          .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
          .send({ email, credits: { 1: CREDITS } });
        expect(created.status).toBe(201);
        return { email, apiKey: (created.body as { apiKey: string }).apiKey };
      }),
    );
    const [first, second] = nodes as [TcpProxy, TcpProxy];
    // The relay's publisher and the notifier's consumer: both on the first node.
    expect({ first: first.accepted(), second: second.accepted() }).toEqual({ first: 2, second: 0 });

    // Every account debited to 0 one credit at a time, the accounts in parallel; the first node goes
    // away once a third of the debits are done (after the first events went out through it).
    const statuses: number[] = [];
    let cut = false;
    await Promise.all(
      accounts.map(async (account) => {
        for (let step = 0; step < CREDITS; step += 1) {
          statuses.push(await debit(account.apiKey));
          if (!cut && statuses.length >= (ACCOUNTS * CREDITS) / 3) {
            cut = true;
            first.cut();
          }
        }
      }),
    );
    expect(statuses.filter((status) => status !== 200)).toEqual([]);

    const mailsTo = (email: string): string[] =>
      smtp.messages
        .filter((mail) => JSON.stringify(mail.to ?? null).includes(email))
        .map((mail) => (mail.subject ?? '').split(':')[0] ?? '');
    await eventually(() => (accounts.every((account) => mailsTo(account.email).length >= 2) ? true : undefined), 30_000, 'every alert');
    // Settled: every event handled by the notifier and every e-mail it queued sent.
    await eventually(async () => {
      const pending = await user.pool.query<{ n: number }>(
        `SELECT (SELECT count(*)::int FROM outbox_events o WHERE o.published_at IS NULL
                    OR NOT EXISTS (SELECT 1 FROM notifier_processed_events p WHERE p.event_id = o.id))
              + (SELECT count(*)::int FROM notifier_mail_outbox WHERE sent_at IS NULL) AS n`,
      );
      return pending.rows[0]?.n === 0 ? true : undefined;
    }, 30_000);
    for (const account of accounts) expect(mailsTo(account.email).sort()).toEqual(['Low balance alert', 'Zero balance alert']);
    expect(second.accepted()).toBe(2);
  }, 120_000);
});
