/**
 * Alerts stay exact when debits are batched (CONTRACT §6): one batch that takes a pool from
 * above the low threshold to 0 yields the low-balance alert and then the zero-balance alert,
 * one e-mail each. User service (batches wait up to 1 s, so that concurrent calls land in one)
 * → outbox → RabbitMQ → notifier → SMTP, on a database of its own.
 */
import request from 'supertest';
import { eventually, type SmtpCapture } from '@platform/testing';
import { startPlatform, type Platform } from '@platform/testing/platform';
import { postUsage, SERVICE_JWT_SECRET, usageBody } from '@platform/user/testing';

describe('metering in batches: both alerts of one batch, in order, once each', () => {
  let platform: Platform;
  let smtp: SmtpCapture;
  let user: { http: ReturnType<typeof request>; pool: Platform['pool']; account: Platform['account'] };

  beforeAll(async () => {
    platform = await startPlatform({
      name: 'metering-batch',
      services: ['user', 'notifier'],
      env: { SERVICE_JWT_SECRET, OUTBOX_POLL_MS: '100', NOTIFIER_MAIL_POLL_MS: '100' },
      serviceEnv: { user: { USAGE_BATCH_MAX_WAIT_MS: '1000' }, notifier: { MAIL_FROM: 'Account alerts <alerts@example.test>' } },
    });
    smtp = platform.smtp as SmtpCapture;
    user = { http: request(platform.url('user')), pool: platform.pool, account: platform.account };
  });

  afterAll(async () => {
    await platform?.stop();
  });

  it('the handle names the URL of each service it started, and of no other', () => {
    expect(platform.urls).toEqual({ user: platform.url('user'), notifier: platform.url('notifier') });
  });

  it('when 12 concurrent calls empty a pool of 12 in one batch, then a low alert and then a zero alert are mailed, and nothing more', async () => {
    const account = await user.account({ 1: 12 });
    const answers = await Promise.all(Array.from({ length: 12 }, () => postUsage(user.http, usageBody(account.apiKey))));
    expect(answers.map((res) => res.status)).toEqual(Array(12).fill(200));
    // One batch: its run of debits down to 1, then the last debit to 0.
    const events = await user.pool.query<{ id: string; payload: { previousCredits: number; credits: number } }>(
      "SELECT id, payload FROM outbox_event_list WHERE payload->>'accountId' = $1 ORDER BY seq, position",
      [String(account.id)],
    );
    expect(events.rows.map((row) => [row.payload.previousCredits, row.payload.credits])).toEqual([
      [12, 1],
      [1, 0],
    ]);

    const mails = () => smtp.messages.filter((mail) => JSON.stringify(mail.to ?? null).includes(account.email));
    await eventually(() => (mails().length >= 2 ? true : undefined), 20_000, 'two alerts');
    // Every event handled (redelivery included) before counting: still two e-mails.
    await eventually(async () => {
      const handled = await user.pool.query('SELECT count(*)::int AS n FROM notifier_processed_events WHERE event_id = ANY($1::uuid[])', [
        events.rows.map((row) => row.id),
      ]);
      return handled.rows[0].n === 2 ? true : undefined;
    }, 20_000);
    expect(mails().map((mail) => mail.subject)).toEqual([
      'Low balance alert: WHOIS API has 1 credit left',
      'Zero balance alert: WHOIS API has no credits left',
    ]);
  });
});
