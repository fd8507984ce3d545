/**
 * A webhook its receiver acknowledged while the notifier's Postgres is away (pgbouncer killed, a
 * failover): the delivery is recorded once Postgres is back, and never sent again when its lease
 * runs out (CONTRACT §6.1: never delivered twice after a 2xx).
 */
import { createPool } from '@platform/db';
import { eventually, silentLogger, startTcpProxy } from '@platform/testing';
import { aChange, useWebhookWorld, withWebhook } from './harness';

const world = useWebhookWorld('delivery_record');

test('when Postgres is away as the receiver answers 200, then the delivery is recorded once it is back and never sent again', async () => {
  const account = await world.harness.account({ 1: 20 });
  await withWebhook(world.harness.pool, account, world.receiver.namedUrl, false);
  // The notifier's Postgres behind a proxy, cut the moment the receiver has the webhook.
  const proxy = await startTcpProxy(Number(new URL(world.database.url).port || 5432));
  const pool = createPool({ connectionString: proxy.url(world.database.url), logger: silentLogger() });
  let cut = false;
  world.receiver.answer(() => {
    if (!cut) proxy.cut();
    cut = true;
    return 200;
  });
  const service = await world.harness.start({
    env: { NOTIFIER_WEBHOOK_POLL_MS: '100', NOTIFIER_WEBHOOK_LEASE_MS: '15000' },
    given: { pool },
  });
  const crossing = aChange(account, 20, 5);
  await world.harness.publish(crossing);
  await world.receiver.waitFor(1);
  // Postgres comes back only once the delivery's lease has run out: then it is due again, unless
  // the dispatcher still holds it to record it.
  await eventually(
    async () =>
      (await world.harness.pool.query('SELECT 1 FROM webhook_deliveries WHERE account_id = $1 AND claimed_until < now()', [account.id]))
        .rowCount === 1
        ? true
        : undefined,
    30_000,
    'the lease to run out',
  );
  proxy.restore();

  const delivered = await eventually(
    async () => {
      const result = await world.harness.pool.query<{ attempts: number }>(
        'SELECT attempts FROM webhook_deliveries WHERE account_id = $1 AND delivered_at IS NOT NULL',
        [account.id],
      );
      return result.rows[0];
    },
    15_000,
    'the delivery recorded',
  );
  expect(world.receiver.received.map((entry) => entry.headers['webhook-id'])).toEqual([`msg_low_${crossing.id}`]);
  expect(delivered).toEqual({ attempts: 1 });
  await service.stop();
  await pool.end();
  await proxy.close();
}, 90_000);
