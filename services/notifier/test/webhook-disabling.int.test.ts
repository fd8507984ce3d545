/**
 * Disabling a balance webhook (CONTRACT §6.1, Standard Webhooks), against a real HTTPS receiver
 * with the address rules on (the receiver's test network): a `410 Gone` disables it at once, with
 * no more attempts; failures only, for 5 days (the dispatcher's clock moved, never slept on),
 * disable it as `failing`. Either way the settings carry the reason and the account's alert
 * address gets exactly one e-mail.
 */
import type pg from 'pg';
import {
  createPrivateDatabase,
  eventually,
  startWebhookReceiver,
  type PrivateDatabase,
  type TestAccount,
  type WebhookReceiver,
} from '@platform/testing';
import { aChange, createHarness, withWebhook, type Harness } from './harness';

const ENV = { NOTIFIER_WEBHOOK_POLL_MS: '100', NOTIFIER_WEBHOOK_RETRY_INITIAL_MS: '200', NOTIFIER_WEBHOOK_RETRY_MAX_MS: '400' };
const DAY_MS = 86_400_000;

let database: PrivateDatabase;
let receiver: WebhookReceiver;
let harness: Harness;

beforeAll(async () => {
  database = await createPrivateDatabase('webhook_disabling');
  receiver = await startWebhookReceiver();
  harness = await createHarness({ databaseUrl: database.url, webhookCa: receiver.ca, webhookNetwork: receiver.network() });
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await receiver?.close();
  await database?.drop();
});

const requestsOf = (account: TestAccount) => receiver.received.filter((entry) => entry.body.includes(`"accountId":${account.id},`));

async function webhookState(pool: pg.Pool, account: TestAccount) {
  const result = await pool.query<{ enabled: boolean; reason: string | null }>(
    'SELECT webhook_enabled AS enabled, webhook_disabled_reason AS reason FROM notification_settings WHERE account_id = $1',
    [account.id],
  );
  return result.rows[0];
}

async function attempts(pool: pg.Pool, account: TestAccount) {
  const result = await pool.query<{ response_status: number | null; error: string | null; retry: boolean }>(
    'SELECT response_status, error, next_retry_at IS NOT NULL AS retry FROM webhook_attempts WHERE account_id = $1 ORDER BY id',
    [account.id],
  );
  return result.rows;
}

const disabledAs = (account: TestAccount, reason: string) =>
  eventually(
    async () => ((await webhookState(harness.pool, account))?.reason === reason ? true : undefined),
    20_000,
    `the webhook of account ${account.id} disabled as ${reason}`,
  );

const noticesTo = (account: TestAccount) => harness.mailsTo(account).filter((mail) => mail.subject?.startsWith('Balance webhook disabled'));

describe('disabling a balance webhook', () => {
  it('when the receiver answers 410 Gone, then the webhook is disabled at once: no more attempts, one e-mail', async () => {
    await harness.stopAll();
    await harness.start({ env: ENV });
    const account = await harness.account({ 1: 30 });
    await withWebhook(harness.pool, account, receiver.namedUrl);
    receiver.answer((_index, entry) => (entry.body.includes(`"accountId":${account.id},`) ? 410 : 200));
    const low = aChange(account, 30, 4);
    await harness.publish(low);
    await disabledAs(account, 'gone');
    expect(await webhookState(harness.pool, account)).toEqual({ enabled: false, reason: 'gone' });
    await eventually(() => (noticesTo(account).length > 0 ? true : undefined), 15_000, 'the notice');

    // A later crossing queues nothing for the disabled webhook; its e-mail alert still goes out.
    const zero = aChange(account, 4, 0);
    await harness.publish(zero);
    await harness.settled(account, [low, zero]);
    const queued = await harness.pool.query('SELECT given_up_at IS NOT NULL AS given_up FROM webhook_deliveries WHERE account_id = $1', [
      account.id,
    ]);
    expect(queued.rows).toEqual([{ given_up: true }]);
    expect(requestsOf(account).map((entry) => entry.answer)).toEqual([410]);
    expect(await attempts(harness.pool, account)).toEqual([{ response_status: 410, error: 'webhook disabled (gone)', retry: false }]);
    const notices = noticesTo(account);
    expect(notices).toHaveLength(1);
    expect(notices[0]?.text).toContain('answered 410 Gone');
    expect(harness.mailsTo(account).map((mail) => mail.subject?.split(':')[0])).toEqual(
      expect.arrayContaining(['Low balance alert', 'Zero balance alert', 'Balance webhook disabled']),
    );
    receiver.answer(() => 200);
  }, 60_000);

  it('when every delivery fails for 5 days, then the webhook is disabled as failing, with one e-mail', async () => {
    await harness.stopAll();
    let movedMs = 0;
    await harness.start({ env: ENV, clock: () => Date.now() + movedMs });
    const account = await harness.account({ 1: 30 });
    await withWebhook(harness.pool, account, receiver.namedUrl);
    receiver.answer((_index, entry) => (entry.body.includes(`"accountId":${account.id},`) ? 503 : 200));
    await harness.publish(aChange(account, 30, 4));
    await eventually(async () => ((await attempts(harness.pool, account)).length > 0 ? true : undefined), 20_000, 'the first attempt');
    // Failing, but not for long: the webhook stays on and the event is retried.
    expect(await webhookState(harness.pool, account)).toEqual({ enabled: true, reason: null });
    expect((await attempts(harness.pool, account))[0]).toEqual({ response_status: 503, error: null, retry: true });

    movedMs = 5 * DAY_MS;
    await disabledAs(account, 'failing');
    const made = await attempts(harness.pool, account);
    expect(made.at(-1)).toEqual({ response_status: 503, error: 'webhook disabled (failing)', retry: false });
    expect(made.slice(0, -1).every((attempt) => attempt.retry && attempt.response_status === 503)).toBe(true);
    const notices = await eventually(() => (noticesTo(account).length > 0 ? noticesTo(account) : undefined), 15_000, 'the notice');
    expect(notices).toHaveLength(1);
    expect(notices[0]?.text).toContain('every delivery to it has failed for 5 days');
    expect(notices[0]?.text).toContain('Once the endpoint works, set the webhook again');
    receiver.answer(() => 200);
  }, 60_000);
});
