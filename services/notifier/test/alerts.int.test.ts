import amqp from 'amqplib';
import request from 'supertest';
import { eventually, testServers } from '@platform/testing';
import { aChange, changesAlong, useStartedHarness, SETTINGS_URL } from './harness';

describe('notifier: alert e-mails through RabbitMQ and SMTP', () => {
  const harness = useStartedHarness();

  it('when the pool crosses the threshold and then hovers below it, then exactly one low-balance e-mail', async () => {
    const account = await harness.account();
    const events = changesAlong(account, [20, 15, 9, 8, 9, 5]);
    await harness.deliver(account, events);

    const mails = harness.mailsTo(account);
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    expect(mail?.subject).toBe('Low balance alert: WHOIS API has 9 credits left');
    expect(mail?.text).toContain('WHOIS API');
    expect(mail?.text).toContain('9 credits left');
    expect(mail?.text).toContain(SETTINGS_URL);
    expect(mail?.html).toEqual(expect.stringContaining('9 credits left'));
    expect(mail?.html).toEqual(expect.stringContaining(`href="${SETTINGS_URL}"`));
    expect(mail?.messageId).toBe(`<low-balance-alert.${events[1]?.id}@example.test>`);
    expect(mail?.from?.text).toContain('alerts@example.test');
  });

  it('when the pool goes low and then to 0, then the zero alert is a separate e-mail', async () => {
    const account = await harness.account();
    const events = changesAlong(account, [11, 5, 0, 0]);
    await harness.deliver(account, events);

    expect(harness.mailsTo(account).map((mail) => mail.subject)).toEqual([
      'Low balance alert: WHOIS API has 5 credits left',
      'Zero balance alert: WHOIS API has no credits left',
    ]);
  });

  it('when the research pool reaches 0 straight from above the threshold, then one zero alert naming Domain Research Suite', async () => {
    const account = await harness.account({ 14: 50 });
    const events = [aChange(account, 50, 0, { productId: 14 })];
    await harness.publish(events[0]!);
    await harness.settled(account, events);
    expect(harness.mailsTo(account).map((mail) => mail.subject)).toEqual(['Zero balance alert: Domain Research Suite has no credits left']);
  });

  it('when a top-up brings the pool back, then both alerts re-arm and fire again on the next crossings', async () => {
    const account = await harness.account();
    const events = changesAlong(account, [15, 5, 100, 3, 0, 2, 0]);
    await harness.deliver(account, events);
    expect(harness.mailsTo(account).map((mail) => mail.subject)).toEqual([
      'Low balance alert: WHOIS API has 5 credits left',
      'Low balance alert: WHOIS API has 3 credits left',
      'Zero balance alert: WHOIS API has no credits left',
      'Zero balance alert: WHOIS API has no credits left',
    ]);
  });

  it('when both alerts are disabled in the settings, then nothing is sent', async () => {
    const account = await harness.account();
    await harness.pool.query(
      'INSERT INTO notification_settings (account_id, low_balance_enabled, low_balance_threshold, zero_balance_enabled) VALUES ($1, false, 10, false)',
      [account.id],
    );
    const events = changesAlong(account, [20, 5, 0]);
    await harness.deliver(account, events);
    expect(harness.mailsTo(account)).toHaveLength(0);
  });

  it('when only the low alert is disabled, then only the zero alert is sent', async () => {
    const account = await harness.account();
    await harness.pool.query('INSERT INTO notification_settings (account_id, low_balance_enabled) VALUES ($1, false)', [account.id]);
    const events = changesAlong(account, [20, 5, 0]);
    await harness.deliver(account, events);
    expect(harness.mailsTo(account).map((mail) => mail.subject)).toEqual(['Zero balance alert: WHOIS API has no credits left']);
  });

  it('when the account set its own threshold, then the crossing is measured against it', async () => {
    const account = await harness.account();
    await harness.pool.query('INSERT INTO notification_settings (account_id, low_balance_threshold) VALUES ($1, 500)', [account.id]);
    const events = changesAlong(account, [600, 550, 499, 20]);
    await harness.deliver(account, events);
    expect(harness.mailsTo(account).map((mail) => mail.subject)).toEqual(['Low balance alert: WHOIS API has 499 credits left']);
  });

  it('when a pool is created below the threshold or the threshold is raised above the balance, then nothing is sent', async () => {
    const account = await harness.account();
    const created = aChange(account, 0, 5);
    await harness.publish(created);
    await harness.settled(account, [created]);
    await harness.pool.query('INSERT INTO notification_settings (account_id, low_balance_threshold) VALUES ($1, 1000)', [account.id]);
    const events = changesAlong(account, [5, 400, 390]);
    await harness.deliver(account, events);
    expect(harness.mailsTo(account)).toHaveLength(0);
  });

  it('when the same event is published twice, then one e-mail', async () => {
    const account = await harness.account();
    const crossing = aChange(account, 20, 5);
    await harness.publish(crossing);
    await harness.publish(crossing);
    await harness.settled(account, [crossing]);
    expect(harness.mailsTo(account)).toHaveLength(1);
  });

  it('when the crossings arrive after the top-up that refilled the pool (out of order), then every crossing still sends its e-mail', async () => {
    const account = await harness.account();
    const low = aChange(account, 20, 4);
    const zero = aChange(account, 4, 0);
    const refill = aChange(account, 0, 15);
    for (const event of [refill, zero, low]) await harness.publish(event);
    await harness.settled(account, [refill, zero, low]);
    expect(harness.mailsTo(account).map((mail) => mail.subject)).toEqual([
      'Zero balance alert: WHOIS API has no credits left',
      'Low balance alert: WHOIS API has 4 credits left',
    ]);
  });

  it('when an event names another product of the pool, then the alert names the pool’s lowest-id product', async () => {
    const account = await harness.account();
    const events = [aChange(account, 12, 4, { productId: 24 })];
    await harness.publish(events[0]!);
    await harness.settled(account, events);
    expect(harness.mailsTo(account).map((mail) => mail.subject)).toEqual(['Low balance alert: WHOIS API has 4 credits left']);
  });

  it('when messages are not JSON, fail the schema or name an unknown account, then they go to the dead-letter queue and the consumer goes on', async () => {
    const connection = await amqp.connect(testServers.amqpUrl);
    try {
      const channel = await connection.createChannel();
      const before = (await channel.checkQueue(harness.names.deadLetterQueue)).messageCount;
      channel.publish(harness.names.exchange, 'balance.changed', Buffer.from('not json at all'), { persistent: true });
      channel.publish(
        harness.names.exchange,
        'balance.changed',
        Buffer.from(JSON.stringify({ type: 'balance.changed', credits: 'many' })),
        { persistent: true },
      );
      await harness.publish(aChange({ id: 2_000_000_000 }, 20, 5));
      await eventually(async () =>
        (await channel.checkQueue(harness.names.deadLetterQueue)).messageCount === before + 3 ? true : undefined,
      );

      const account = await harness.account();
      const events = changesAlong(account, [20, 5]);
      await harness.publish(events[0]!);
      await harness.settled(account, events);
      expect(harness.mailsTo(account)).toHaveLength(1);
    } finally {
      await connection.close();
    }
  });

  it('when the settings name an alert e-mail, then the alert goes there and still names the account', async () => {
    const account = await harness.account();
    const alertsTo = `ops-${account.id}@example.test`;
    await harness.pool.query('INSERT INTO notification_settings (account_id, alert_email) VALUES ($1, $2)', [account.id, alertsTo]);
    const events = changesAlong(account, [20, 5]);
    await harness.publish(events[0]!);
    await harness.settled(account, events);
    const mails = harness.smtp.messages.filter((message) => JSON.stringify(message.to).includes(alertsTo));
    expect(mails.map((mail) => mail.subject)).toEqual(['Low balance alert: WHOIS API has 5 credits left']);
    expect(mails[0]?.text).toContain(`This alert is about your Account access account ${account.email} (account id ${account.id}).`);
    expect(harness.mailsTo(account)).toEqual([]);
  });

  it('when asked, then health, metrics and OpenAPI answer', async () => {
    await request(harness.service.url).get('/health/live').expect(200, { status: 'ok' });
    await request(harness.service.url).get('/health/ready').expect(200, { status: 'ready' });
    const metrics = await request(harness.service.url).get('/metrics').expect(200);
    expect(metrics.text).toContain('notifier_events_total{result="processed"');
    expect(metrics.text).toContain('notifier_emails_total{kind="low",result="sent"');
    const openapi = await request(harness.service.url).get('/openapi.json').expect(200);
    expect(openapi.body).toMatchObject({ openapi: '3.1.0' });
  });
});
