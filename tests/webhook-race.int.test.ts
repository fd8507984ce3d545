/**
 * Balance webhooks end to end under a race of real debits (CONTRACT §6.1): user service (usage
 * API, outbox) → RabbitMQ → two notifier replicas → a real HTTPS receiver. Many concurrent calls
 * drive several pools through their low line and to 0: each crossing is delivered exactly once,
 * verifying with the `standardwebhooks` library, and a replica stopped and started again sends
 * nothing twice. On a database of its own.
 */
import { eventually, type WebhookReceiver } from '@platform/testing';
import { postUsage, usageBody } from '@platform/user/testing';
import { startAlerting, type Alerting } from './support/alerting';

describe('balance webhooks under a race of debits, two notifier replicas and a restart', () => {
  let alerting: Alerting;

  beforeAll(async () => {
    alerting = await startAlerting({
      name: 'webhook-race',
      webhooks: true,
      notifierEnv: { NOTIFIER_WEBHOOK_POLL_MS: '100' },
      notifiers: 2,
    });
  }, 60_000);

  afterAll(async () => {
    await alerting?.stop();
  });

  it('when concurrent calls empty four pools, then one balance.low and one balance.zero per pool, each verifying, and none again after a restart', async () => {
    const user = alerting.user;
    const receiver = alerting.receiver as WebhookReceiver;
    const accounts = await Promise.all(Array.from({ length: 4 }, () => user.account({ 1: 25 })));
    const secrets = new Map<string, number>();
    for (const account of accounts) {
      const set = await user.http
        .post('/user-service/notification-settings')
        .send({ apiKey: account.apiKey, webhook: { url: receiver.namedUrl } });
      expect(set.status).toBe(200);
      secrets.set(set.body.webhook.secret as string, account.id);
    }
    // 30 calls of one credit per account, all at once: 25 are granted, 5 refused.
    const calls = accounts.flatMap((account) => Array.from({ length: 30 }, () => postUsage(user.http, usageBody(account.apiKey))));
    const statuses = (await Promise.all(calls)).map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(100);

    await receiver.waitFor(8, 30_000);
    const delivered = async () =>
      (await user.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries WHERE delivered_at IS NOT NULL')).rows[0]?.n;
    await eventually(async () => ((await delivered()) === 8 ? true : undefined), 20_000, 'eight deliveries marked');

    // A replica stops and another starts: a later crossing is delivered, the earlier ones not again.
    await alerting.notifiers.shift()?.stop();
    await alerting.startNotifier();
    const late = await user.account({ 1: 11 });
    const lateSet = await user.http
      .post('/user-service/notification-settings')
      .send({ apiKey: late.apiKey, webhook: { url: receiver.namedUrl } });
    secrets.set(lateSet.body.webhook.secret as string, late.id);
    expect((await postUsage(user.http, usageBody(late.apiKey, { units: 2 }))).status).toBe(200);
    await eventually(async () => ((await delivered()) === 9 ? true : undefined), 20_000, 'the late crossing delivered');

    // Per account, each crossing once. Deliveries are sent concurrently, by two replicas, so they
    // may arrive in either order: CONTRACT §6.1 promises none (each carries its event's timestamp).
    const byAccount = new Map<number, string[]>();
    for (const entry of receiver.received) {
      const verified = [...secrets.keys()].map((secret) => {
        try {
          return receiver.verify(secret, entry);
        } catch {
          return undefined;
        }
      });
      const payload = verified.find((value) => value !== undefined);
      expect(payload).toBeDefined();
      const accountId = payload?.data.accountId as number;
      expect(secrets.get([...secrets.keys()][verified.indexOf(payload)] as string)).toBe(accountId);
      byAccount.set(accountId, [...(byAccount.get(accountId) ?? []), payload?.type as string]);
    }
    const typesOf = (accountId: number) => [...(byAccount.get(accountId) ?? [])].sort();
    for (const account of accounts) expect(typesOf(account.id)).toEqual(['balance.low', 'balance.zero']);
    expect(typesOf(late.id)).toEqual(['balance.low']);
    expect(receiver.received).toHaveLength(9);
    expect(new Set(receiver.received.map((entry) => entry.headers['webhook-id'])).size).toBe(9);
  }, 90_000);
});
