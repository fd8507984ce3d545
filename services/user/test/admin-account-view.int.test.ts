/**
 * CONTRACT §7: `GET /admin/v1/accounts/:id` shows the account's notification settings (alert
 * address, thresholds, webhook URL and state, never the secret) and its last webhook deliveries,
 * against a real HTTPS receiver.
 */
import { recordWebhookAttempt } from '@platform/accounts';
import { startWebhookReceiver, type WebhookReceiver } from '@platform/testing';
import { ADMIN_TOKEN, startHarness, type Harness } from './harness';

const PATH = '/user-service/notification-settings';
let receiving: Harness;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  receiving = await startHarness({ webhookCa: receiver.ca, webhookNetwork: receiver.network() });
});
afterAll(async () => {
  await receiving?.stop();
  await receiver?.close();
});

const shown = (id: number) => receiving.http.get(`/admin/v1/accounts/${id}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);

describe('GET /admin/v1/accounts/:id: notification settings and webhook deliveries', () => {
  it('when the account set its alerts and a webhook and sent a test, then the operator sees them, without the secret', async () => {
    const account = await receiving.account({ 1: 10 });
    const set = await receiving.http.post(PATH).send({
      apiKey: account.apiKey,
      email: 'alerts@example.test',
      lowBalanceAlert: { threshold: 25 },
      zeroBalanceAlert: { enabled: false },
      webhook: { url: receiver.namedUrl, enabled: false },
    });
    expect(set.status).toBe(200);
    const secret = (set.body as { webhook: { secret: string } }).webhook.secret;
    expect((await receiving.http.post(`${PATH}/webhook-test`).send({ apiKey: account.apiKey })).status).toBe(200);
    const deliveries = await receiving.http.get('/user-service/webhook-deliveries').query({ apiKey: account.apiKey });

    const reply = await shown(account.id);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: account.id,
      notifications: {
        email: 'alerts@example.test',
        lowBalanceAlert: { enabled: true, threshold: 25 },
        zeroBalanceAlert: { enabled: false },
        webhook: { url: receiver.namedUrl, enabled: false },
      },
      webhookDeliveries: (deliveries.body as { data: unknown[] }).data,
    });
    expect((reply.body as { webhookDeliveries: unknown[] }).webhookDeliveries).toHaveLength(1);
    expect(reply.text).not.toContain(secret);
    expect(reply.text).not.toContain('whsec_');
  });

  it('when an account has more than ten attempts, then the latest ten, newest first', async () => {
    const account = await receiving.account({ 1: 10 });
    await receiving.http.post(PATH).send({ apiKey: account.apiKey, webhook: { url: receiver.namedUrl } });
    // Eleven attempts listed as the notifier lists them (webhook-test allows 5 a minute).
    for (let sent = 0; sent < 11; sent += 1)
      await recordWebhookAttempt(receiving.pool, {
        accountId: account.id,
        webhookId: `msg_low_${sent}`,
        type: 'balance.low',
        status: 200,
        error: undefined,
        nextRetryAt: undefined,
      });
    const all = (await receiving.http.get('/user-service/webhook-deliveries').query({ apiKey: account.apiKey })).body as {
      data: unknown[];
    };
    expect(all.data).toHaveLength(11);
    expect((await shown(account.id)).body.webhookDeliveries).toEqual(all.data.slice(0, 10));
  });
});
