/**
 * Disabling a balance webhook (CONTRACT §6.1, Standard Webhooks), against a real HTTPS receiver
 * with the address rules on (the receiver's test network): a `410 Gone` disables it at once, with
 * no more attempts; failures only, for 5 days (the dispatcher's clock moved, never slept on),
 * disable it as `failing`. Either way the settings carry the reason and the account's alert
 * address gets exactly one e-mail.
 */
import type pg from 'pg';
import { eventually, type TestAccount } from '@platform/testing';
import { aChange, useWebhookWorld, withWebhook } from './harness';

const ENV = { NOTIFIER_WEBHOOK_POLL_MS: '100', NOTIFIER_WEBHOOK_RETRY_INITIAL_MS: '200', NOTIFIER_WEBHOOK_RETRY_MAX_MS: '400' };
const DAY_MS = 86_400_000;

const world = useWebhookWorld('webhook_disabling');

const requestsOf = (account: TestAccount) => world.receiver.received.filter((entry) => entry.body.includes(`"accountId":${account.id},`));

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
    async () => ((await webhookState(world.harness.pool, account))?.reason === reason ? true : undefined),
    20_000,
    `the webhook of account ${account.id} disabled as ${reason}`,
  );

const noticesTo = (account: TestAccount) =>
  world.harness.mailsTo(account).filter((mail) => mail.subject?.startsWith('Balance webhook disabled'));

describe('disabling a balance webhook', () => {
  it('when the receiver answers 410 Gone, then the webhook is disabled at once: no more attempts, one e-mail', async () => {
    await world.harness.stopAll();
    await world.harness.start({ env: ENV });
    const account = await world.harness.account({ 1: 30 });
    await withWebhook(world.harness.pool, account, world.receiver.namedUrl);
    world.receiver.answer((_index, entry) => (entry.body.includes(`"accountId":${account.id},`) ? 410 : 200));
    const low = aChange(account, 30, 4);
    await world.harness.publish(low);
    await disabledAs(account, 'gone');
    expect(await webhookState(world.harness.pool, account)).toEqual({ enabled: false, reason: 'gone' });
    await eventually(() => (noticesTo(account).length > 0 ? true : undefined), 15_000, 'the notice');

    // A later crossing queues nothing for the disabled webhook; its e-mail alert still goes out.
    const zero = aChange(account, 4, 0);
    await world.harness.publish(zero);
    await world.harness.settled(account, [low, zero]);
    const queued = await world.harness.pool.query(
      'SELECT given_up_at IS NOT NULL AS given_up FROM webhook_deliveries WHERE account_id = $1',
      [account.id],
    );
    expect(queued.rows).toEqual([{ given_up: true }]);
    expect(requestsOf(account).map((entry) => entry.answer)).toEqual([410]);
    expect(await attempts(world.harness.pool, account)).toEqual([{ response_status: 410, error: 'webhook disabled (gone)', retry: false }]);
    const notices = noticesTo(account);
    expect(notices).toHaveLength(1);
    expect(notices[0]?.text).toContain('answered 410 Gone');
    expect(world.harness.mailsTo(account).map((mail) => mail.subject?.split(':')[0])).toEqual(
      expect.arrayContaining(['Low balance alert', 'Zero balance alert', 'Balance webhook disabled']),
    );
    world.receiver.answer(() => 200);
  }, 60_000);

  it('when every delivery fails for 5 days, then the webhook is disabled as failing, with one e-mail', async () => {
    await world.harness.stopAll();
    let movedMs = 0;
    await world.harness.start({ env: ENV, clock: () => Date.now() + movedMs });
    const account = await world.harness.account({ 1: 30 });
    await withWebhook(world.harness.pool, account, world.receiver.namedUrl);
    world.receiver.answer((_index, entry) => (entry.body.includes(`"accountId":${account.id},`) ? 503 : 200));
    await world.harness.publish(aChange(account, 30, 4));
    await eventually(
      async () => ((await attempts(world.harness.pool, account)).length > 0 ? true : undefined),
      20_000,
      'the first attempt',
    );
    // Failing, but not for long: the webhook stays on and the event is retried.
    expect(await webhookState(world.harness.pool, account)).toEqual({ enabled: true, reason: null });
    expect((await attempts(world.harness.pool, account))[0]).toEqual({ response_status: 503, error: null, retry: true });

    movedMs = 5 * DAY_MS;
    await disabledAs(account, 'failing');
    const made = await attempts(world.harness.pool, account);
    expect(made.at(-1)).toEqual({ response_status: 503, error: 'webhook disabled (failing)', retry: false });
    expect(made.slice(0, -1).every((attempt) => attempt.retry && attempt.response_status === 503)).toBe(true);
    const notices = await eventually(() => (noticesTo(account).length > 0 ? noticesTo(account) : undefined), 15_000, 'the notice');
    expect(notices).toHaveLength(1);
    expect(notices[0]?.text).toContain('every delivery to it has failed for 5 days');
    expect(notices[0]?.text).toContain('Once the endpoint works, set the webhook again');
    world.receiver.answer(() => 200);
  }, 60_000);
});
