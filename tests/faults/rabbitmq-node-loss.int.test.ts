/**
 * CONTRACT §1, RabbitMQ over several nodes: AMQP_URL lists two "nodes" (two TCP proxies in front
 * of the shared broker). The user service's outbox relay and the notifier both start on the
 * first. It stops answering (a black hole) while debits cross thresholds on many accounts, so the
 * relay's publishes of those crossings sit on it unconfirmed; then it goes away. Both move to the
 * second without a restart, the unconfirmed events go out there (publisher confirms), and every
 * account gets exactly one low and one zero alert.
 */
import { randomUUID } from 'node:crypto';
import { signServiceJwt } from '@platform/credentials';
import { captureLogs, eventually, startTcpProxy, testServers, uniqueId, type TcpProxy, unpublishedEvents } from '@platform/testing';
import { ADMIN_TOKEN, SERVICE_JWT_SECRET } from '@platform/user/testing';
import { startAlerting, type Alerting } from '../support/alerting';
import { verifyLedgerAfterAll } from './ledger-check';

const ACCOUNTS = 12;
const CREDITS = 20;
/** Debits per account before the fault: 20 -> 15, above the low threshold (10). */
const BEFORE = 5;

describe('the RabbitMQ node the relay and the notifier use goes away during a load that crosses thresholds', () => {
  let alerting: Alerting;
  let nodes: TcpProxy[];
  const logs = captureLogs('user');

  beforeAll(async () => {
    const port = Number(new URL(testServers.amqpUrl).port || 5672);
    nodes = [await startTcpProxy(port), await startTcpProxy(port)];
    const amqpUrl = nodes.map((node) => node.url(testServers.amqpUrl)).join(',');
    alerting = await startAlerting({ name: 'nodeloss', userAmqpUrl: amqpUrl, notifierAmqpUrl: amqpUrl, userLogger: logs.logger });
  }, 60_000);

  // Before the afterAll below drops the database: whatever the faults did, the ledger is exact.
  verifyLedgerAfterAll(() => alerting?.databaseUrl);

  afterAll(async () => {
    await alerting?.stop();
    for (const node of nodes ?? []) await node.close();
  });

  const jwt = signServiceJwt({ issuer: 'fault-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 300 });
  const debit = async (apiKey: string): Promise<number> =>
    (
      await alerting.user.http
        .post('/internal/v1/usage')
        .set('Authorization', `Bearer ${jwt}`)
        .send({ credential: apiKey, productId: 1, units: 1, requestId: randomUUID() })
    ).status;

  const mailsTo = (email: string): string[] => alerting.mailsTo(email).map((mail) => (mail.subject ?? '').split(':')[0] ?? '');

  test('then both move to the other node, the unconfirmed events go out there, and every account gets one low and one zero alert, none twice', async () => {
    const accounts = await Promise.all(
      Array.from({ length: ACCOUNTS }, async () => {
        const email = `${uniqueId('nodeloss')}@example.test`;
        const created = await alerting.user.http
          .post('/admin/v1/accounts')
          .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
          .send({ email, credits: { 1: CREDITS } });
        expect(created.status).toBe(201);
        const body = created.body as { id: number; apiKey: string };
        return { id: body.id, email, apiKey: body.apiKey };
      }),
    );
    const ids = accounts.map((account) => account.id);
    const [first, second] = nodes as [TcpProxy, TcpProxy];
    // The relay's publisher and the notifier's consumer: both on the first node.
    expect({ first: first.accepted(), second: second.accepted() }).toEqual({ first: 2, second: 0 });
    const debitAll = async (times: number): Promise<number[]> =>
      (await Promise.all(accounts.map(async (account) => Promise.all(Array.from({ length: times }, () => debit(account.apiKey)))))).flat();

    // Above every threshold: these events go out through the first node and are handled.
    expect((await debitAll(BEFORE)).filter((status) => status !== 200)).toEqual([]);
    await alerting.settled(ids, 30_000);

    // The first node stops answering: whatever the relay publishes now is never confirmed. Every
    // crossing is made now, so every alert depends on events that were sent to the lost node.
    first.blackHole();
    expect((await debitAll(CREDITS - BEFORE)).filter((status) => status !== 200)).toEqual([]);
    const atCut = await eventually(
      async () => {
        const [owed, zero] = [await unpublishedEvents(alerting.user.pool, ids), await unpublishedEvents(alerting.user.pool, ids, 0)];
        // The relay at work on them: publishing (a claim held), or done (nothing of the crossings left).
        return owed.claimed > 0 || zero.pending === 0 ? { ...owed, zero: zero.pending } : undefined;
      },
      5_000,
      'the relay to take the events of the crossings',
    );
    first.cut();

    await eventually(() => (accounts.every((account) => mailsTo(account.email).length >= 2) ? true : undefined), 30_000, 'every alert');
    await alerting.settled(ids, 30_000);
    for (const account of accounts) expect(mailsTo(account.email).sort()).toEqual(['Low balance alert', 'Zero balance alert']);
    expect(second.accepted()).toBe(2);
    // What was at stake at the cut (checked last, so that a lost event shows as the lost alert it
    // is): every event since the black hole unconfirmed, and the one the relay was publishing sent
    // on the lost node, then again on the other.
    const resent = logs.lines().filter((line) => line.message === 'publish not confirmed before the connection was lost; sending it again');
    expect({ zeroCrossingsPending: atCut.zero, claimed: atCut.claimed > 0, resent: resent.length > 0 }).toEqual({
      zeroCrossingsPending: ACCOUNTS,
      claimed: true,
      resent: true,
    });
  }, 120_000);
});
