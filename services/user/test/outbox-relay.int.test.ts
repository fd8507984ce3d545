import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { signServiceJwt } from '@platform/credentials';
import { createPool, migrate } from '@platform/db';
import { userMigrations } from '../src/migrations';
import { BALANCE_CHANGED, UnroutableEventError, validateEvent, type BalanceChanged, type EventBus, type EventName } from '@platform/events';
import {
  captureLogs,
  eventually,
  silentLogger,
  startTcpProxy,
  testServers,
  uniqueId,
  type TcpProxy,
  createPrivateDatabase,
  type PrivateDatabase,
  deleteTopology,
} from '@platform/testing';
import { startOutboxRelay, type OutboxRelay } from '../src/entry-points/outbox-relay';
import { createOutboxStore } from '../src/store/outbox';
import { ADMIN_TOKEN, SERVICE_JWT_SECRET, startHarness, testConfig, type Harness } from './harness';
import { observeExchange, useObservedRelay, type ExchangeObserver } from './rabbitmq';

const ADMIN = `Bearer ${ADMIN_TOKEN}`;

interface OutboxRow {
  id: string;
  seq: number;
  published: boolean;
  failed: boolean;
  claimed: boolean;
  lastError: string | null;
  payload: BalanceChanged;
}

async function outboxRows(pool: pg.Pool, accountId?: number): Promise<OutboxRow[]> {
  const result = await pool.query<{
    id: string;
    seq: number;
    published_at: Date | null;
    failed_at: Date | null;
    claimed_until: Date | null;
    last_error: string | null;
    payload: BalanceChanged;
  }>(
    `SELECT id, seq, published_at, failed_at, claimed_until, last_error, payload FROM outbox_events
      WHERE $1::text IS NULL OR payload->>'accountId' = $1 ORDER BY seq`,
    [accountId === undefined ? null : String(accountId)],
  );
  return result.rows.map((row) => ({
    id: row.id,
    seq: Number(row.seq),
    published: row.published_at !== null,
    failed: row.failed_at !== null,
    claimed: row.claimed_until !== null,
    lastError: row.last_error,
    payload: row.payload,
  }));
}

/** First arrival of each event id, in arrival order. */
const firstArrivals = (events: BalanceChanged[]): string[] => [...new Set(events.map((event) => event.id))];

describe('outbox relay with RabbitMQ (through a TCP proxy, on a database and exchange of its own)', () => {
  let db: PrivateDatabase;
  let proxy: TcpProxy;
  let observer: ExchangeObserver;
  let h: Harness;
  const exchange = uniqueId('test.user-relay.');

  const logs = captureLogs('user');
  const start = () =>
    startHarness({
      logger: logs.logger,
      eventBus: 'amqp',
      config: testConfig({
        DATABASE_URL: db.url,
        AMQP_URL: proxy.url(testServers.amqpUrl),
        BALANCE_EXCHANGE: exchange,
        OUTBOX_POLL_MS: '100',
        OUTBOX_RETRY_INITIAL_MS: '50',
        OUTBOX_RETRY_MAX_MS: '300',
      }),
    });

  beforeAll(async () => {
    db = await createPrivateDatabase('relay');
    proxy = await startTcpProxy(Number(new URL(testServers.amqpUrl).port || 5672));
    observer = await observeExchange(testServers.amqpUrl, exchange);
    h = await start();
  });

  afterAll(async () => {
    await h.stop();
    await observer.close();
    await proxy.close();
    await deleteTopology(testServers.amqpUrl, { exchanges: [exchange] });
    await db.drop();
  });

  const createAccount = async (credits: number): Promise<{ id: number; apiKey: string }> => {
    const res = await h.http
      .post('/admin/v1/accounts')
      .set('Authorization', ADMIN)
      .send({ email: `${uniqueId('relay')}@example.test`, credits: { 1: credits } });
    expect(res.status).toBe(201);
    return { id: res.body.id as number, apiKey: res.body.apiKey as string };
  };
  const debit = async (apiKey: string, units = 1) => {
    const jwt = signServiceJwt({ issuer: 'relay-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 });
    const res = await h.http
      .post('/internal/v1/usage')
      .set('Authorization', `Bearer ${jwt}`)
      .send({ credential: apiKey, productId: 1, units, requestId: randomUUID() });
    expect(res.status).toBe(200);
  };
  const adjust = async (accountId: number, amount: number) => {
    const res = await h.http.post(`/admin/v1/accounts/${accountId}/credits`).set('Authorization', ADMIN).send({ productId: 1, amount });
    expect(res.status).toBe(200);
  };
  const allPublished = (accountId: number) =>
    eventually(async () => ((await outboxRows(h.pool, accountId)).every((row) => row.published && !row.claimed) ? true : undefined));
  const arrived = (accountId: number, count: number) =>
    eventually(
      () => (firstArrivals(observer.eventsOf(accountId)).length >= count ? true : undefined),
      20_000,
      `${count} events of ${accountId}`,
    );

  it('when credits change (top-up, usage, adjustment), then each event is published in order and marked published, and readiness includes RabbitMQ', async () => {
    const account = await createAccount(30);
    await debit(account.apiKey, 2);
    await adjust(account.id, -5);
    await arrived(account.id, 3);
    const rows = await outboxRows(h.pool, account.id);
    expect(observer.eventsOf(account.id)).toEqual(rows.map((row) => row.payload));
    expect(rows.map((row) => [row.payload.cause, row.payload.previousCredits, row.payload.credits])).toEqual([
      ['top-up', 0, 30],
      ['usage', 30, 28],
      ['adjustment', 28, 23],
    ]);
    await allPublished(account.id);
    const ready = await h.http.get('/health/ready');
    expect(ready.status).toBe(200);
  });

  it('when RabbitMQ is unreachable, then the API still debits, events wait in the outbox, and all arrive in order once it returns', async () => {
    const account = await createAccount(100);
    await arrived(account.id, 1);
    await allPublished(account.id);
    const offset = logs.text().length;
    proxy.cut();
    try {
      for (let index = 0; index < 10; index += 1) await debit(account.apiKey);
      await adjust(account.id, 50);
      await adjust(account.id, -20);
      // The relay was woken by those commits and tried: its failed publish, not a pause, is what we wait for.
      await eventually(
        () => (logs.text().slice(offset).includes('outbox publish failed, will retry') ? true : undefined),
        10_000,
        'a failed publish',
      );
      expect(observer.eventsOf(account.id)).toHaveLength(1);
      const waiting = await outboxRows(h.pool, account.id);
      expect(waiting.filter((row) => !row.published)).toHaveLength(12);
      const metrics = await h.http.get('/metrics');
      expect(metrics.text).toMatch(/^outbox_pending_events\{service="user"\} 12$/m);
      expect((await h.http.get('/health/ready')).status).toBe(200);
    } finally {
      proxy.restore();
    }
    await arrived(account.id, 13);
    const rows = await outboxRows(h.pool, account.id);
    // Nothing lost, each event at least once, first arrivals in outbox order.
    expect(firstArrivals(observer.eventsOf(account.id))).toEqual(rows.map((row) => row.id));
    const chain = rows.map((row) => row.payload);
    for (const [index, event] of chain.entries()) if (index > 0) expect(event.previousCredits).toBe(chain[index - 1]?.credits);
    expect(chain.at(-1)?.credits).toBe(120);
    await allPublished(account.id);
    await eventually(async () => ((await h.http.get('/health/ready')).status === 200 ? true : undefined), 15_000);
  });

  it('when the service stops during an outage, then it stops promptly, and a new instance publishes what was left', async () => {
    const account = await createAccount(10);
    await arrived(account.id, 1);
    await allPublished(account.id);
    proxy.cut();
    let stoppedInMs = 0;
    try {
      await debit(account.apiKey);
      await debit(account.apiKey);
      const started = Date.now();
      await h.stop();
      stoppedInMs = Date.now() - started;
    } finally {
      proxy.restore();
      h = await start();
    }
    expect(stoppedInMs).toBeLessThan(10_000);
    await arrived(account.id, 3);
    const rows = await outboxRows(h.pool, account.id);
    expect(firstArrivals(observer.eventsOf(account.id))).toEqual(rows.map((row) => row.id));
  });
});

describe('a commit wakes the relay (polling set to an hour, RabbitMQ, a database and exchange of their own)', () => {
  // The relay's first round runs at start and finds nothing; after it, only a wake-up publishes within the hour.
  const relay = useObservedRelay('relaywake', { OUTBOX_POLL_MS: String(60 * 60 * 1000) });

  /** Ms from the answer (the commit is before it) to the arrival of the account's `count`-th event. */
  const publishedWithin = async (accountId: number, count: number, answeredAt: number): Promise<number> => {
    await eventually(() => (firstArrivals(relay.observer.eventsOf(accountId)).length >= count ? true : undefined), 1000, `event ${count}`);
    return Date.now() - answeredAt;
  };

  it('when an admin change or a usage debit commits, then its event is published within a second', async () => {
    const created = await relay.h.http
      .post('/admin/v1/accounts')
      .set('Authorization', ADMIN)
      .send({ email: `${uniqueId('wake')}@example.test`, credits: { 1: 10 } });
    expect(created.status).toBe(201);
    const accountId = created.body.id as number;
    expect(await publishedWithin(accountId, 1, Date.now())).toBeLessThan(1000);

    const topUp = await relay.h.http
      .post(`/admin/v1/accounts/${accountId}/credits`)
      .set('Authorization', ADMIN)
      .send({ productId: 1, amount: 5 });
    expect(topUp.status).toBe(200);
    expect(await publishedWithin(accountId, 2, Date.now())).toBeLessThan(1000);

    const jwt = signServiceJwt({ issuer: 'relay-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 });
    const debited = await relay.h.http
      .post('/internal/v1/usage')
      .set('Authorization', `Bearer ${jwt}`)
      .send({ credential: created.body.apiKey as string, productId: 1, units: 1, requestId: randomUUID() });
    expect(debited.status).toBe(200);
    expect(await publishedWithin(accountId, 3, Date.now())).toBeLessThan(1000);
  });
});

/** A bus that records what it is given; `fail(n, error)` makes the next n publishes reject. */
function recordingBus(delayMs = 0) {
  const published: Array<{ id: string; routingKey: string }> = [];
  const attempts: string[] = [];
  let failures: { count: number; error: () => Error } = { count: 0, error: () => new Error('x') };
  let gate: Promise<void> | undefined;
  const bus: EventBus = {
    async publish(routingKey: EventName, payload: unknown) {
      attempts.push(String((payload as { id?: unknown }).id));
      const event = validateEvent(routingKey, payload);
      if (gate) await gate;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (failures.count > 0) {
        failures = { ...failures, count: failures.count - 1 };
        throw failures.error();
      }
      published.push({ id: event.id, routingKey });
    },
    consume: () => {
      throw new Error('not used');
    },
    ping: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  return {
    bus,
    published,
    attempts,
    fail(count: number, error: () => Error) {
      failures = { count, error };
    },
    hold(): () => void {
      let open!: () => void;
      gate = new Promise((resolve) => (open = resolve));
      return () => {
        gate = undefined;
        open();
      };
    },
  };
}

describe('outbox relay rules (a database of its own, a recording bus)', () => {
  let db: PrivateDatabase;
  let pool: pg.Pool;
  const relays: OutboxRelay[] = [];
  let accountId = 0;

  beforeAll(async () => {
    db = await createPrivateDatabase('relayrules');
    pool = createPool({ connectionString: db.url, logger: silentLogger(), max: 6 });
    await migrate(pool, [userMigrations], silentLogger());
  });

  afterEach(async () => {
    for (const relay of relays.splice(0)) await relay.stop();
    await pool.query('UPDATE outbox_events SET published_at = now() WHERE published_at IS NULL AND failed_at IS NULL');
  });

  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  const relay = (bus: EventBus, overrides: { pollMs?: number; batchSize?: number } = {}): OutboxRelay => {
    const started = startOutboxRelay({
      outbox: createOutboxStore(pool),
      bus,
      logger: silentLogger(),
      pollMs: 50,
      retryInitialMs: 20,
      retryMaxMs: 100,
      ...overrides,
    });
    relays.push(started);
    return started;
  };

  /** Writes `count` events straight into the outbox (as the credit write path does), returns their ids in order. */
  const enqueue = async (count: number, payload: (index: number) => object | undefined = () => undefined): Promise<string[]> => {
    accountId += 1;
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const id = randomUUID();
      const event = payload(index) ?? {
        id,
        type: BALANCE_CHANGED,
        accountId,
        productId: 1,
        previousCredits: 1000 - index,
        credits: 999 - index,
        cause: 'usage',
        occurredAt: new Date().toISOString(),
      };
      await pool.query('INSERT INTO outbox_events (id, routing_key, payload) VALUES ($1, $2, $3)', [
        id,
        BALANCE_CHANGED,
        JSON.stringify({ ...event, id }),
      ]);
      ids.push(id);
    }
    return ids;
  };

  const settled = (ids: string[]) =>
    eventually(async () => {
      const rows = await pool.query<{ n: string }>(
        'SELECT count(*) AS n FROM outbox_events WHERE id = ANY($1::uuid[]) AND (published_at IS NOT NULL OR failed_at IS NOT NULL)',
        [ids],
      );
      return Number(rows.rows[0]?.n) === ids.length ? true : undefined;
    }, 15_000);

  it('when no queue is bound (unroutable), then the event is kept and retried, and the batch goes out in order once it is routable', async () => {
    const recorder = recordingBus();
    recorder.fail(3, () => new UnroutableEventError('no queue'));
    const ids = await enqueue(4);
    relay(recorder.bus);
    await settled(ids);
    expect(recorder.published.map((event) => event.id)).toEqual(ids);
    expect(recorder.attempts.slice(0, 4)).toEqual([ids[0], ids[0], ids[0], ids[0]]);
  });

  it('when the bus refuses an event as invalid, then that row is marked failed with the reason and the others are published', async () => {
    const recorder = recordingBus();
    const ids = await enqueue(3, (index) =>
      index === 1
        ? {
            type: BALANCE_CHANGED,
            accountId: 1,
            productId: 1,
            previousCredits: 1,
            credits: -1,
            cause: 'usage',
            occurredAt: new Date().toISOString(),
          }
        : undefined,
    );
    relay(recorder.bus);
    await settled(ids);
    expect(recorder.published.map((event) => event.id)).toEqual([ids[0], ids[2]]);
    const failed = (await outboxRows(pool)).find((row) => row.id === ids[1]);
    expect(failed).toMatchObject({ failed: true, published: false });
    expect(failed?.lastError).toMatch(/invalid balance.changed payload/);
    // A failed row is never picked up again: a later round publishes a later event, and has not tried it.
    const later = await enqueue(1);
    await settled(later);
    expect(recorder.published.map((event) => event.id)).toEqual([ids[0], ids[2], ...later]);
    expect(recorder.attempts.filter((id) => id === ids[1])).toHaveLength(1);
  });

  it('when a claimed batch is published, then its events are marked published together, in one statement (one commit, not one per event)', async () => {
    const recorder = recordingBus();
    const ids = await enqueue(20);
    relay(recorder.bus);
    await settled(ids);
    expect(recorder.published.map((event) => event.id)).toEqual(ids);
    const marks = await pool.query<{ published_at: Date }>('SELECT DISTINCT published_at FROM outbox_events WHERE id = ANY($1::uuid[])', [
      ids,
    ]);
    // now() is the transaction's start: one value for the 20 rows means one statement marked them.
    expect(marks.rows).toHaveLength(1);
  });

  it('when two relays (replicas) run on one outbox, then every event is published exactly once', async () => {
    const recorder = recordingBus(1);
    const ids = await enqueue(300);
    relay(recorder.bus, { batchSize: 10 });
    relay(recorder.bus, { batchSize: 10 });
    await settled(ids);
    const published = recorder.published.map((event) => event.id);
    expect(published).toHaveLength(300);
    expect(new Set(published).size).toBe(300);
  });

  it('when a relay stops mid-batch, then the publish in flight completes and the rest of its batch is given back at once', async () => {
    const recorder = recordingBus();
    const release = recorder.hold();
    const ids = await enqueue(5);
    const running = relay(recorder.bus);
    await eventually(() => (recorder.attempts.length === 1 ? true : undefined));
    const stopped = running.stop();
    release();
    await stopped;
    const rows = (await outboxRows(pool)).filter((row) => ids.includes(row.id));
    expect(rows.map((row) => [row.published, row.claimed])).toEqual([
      [true, false],
      [false, false],
      [false, false],
      [false, false],
      [false, false],
    ]);
  });

  /** A relay on `count` new events whose first the bus confirmed while it holds the rest, all of them sent. */
  const firstConfirmedRestHeld = async (count: number) => {
    const recorder = recordingBus();
    const releaseFirst = recorder.hold();
    const ids = await enqueue(count);
    relay(recorder.bus);
    await eventually(() => (recorder.attempts.length === 1 ? true : undefined));
    releaseFirst();
    const releaseRest = recorder.hold();
    // Published one at a time, the second would wait for its confirm before the third went out.
    await eventually(() => (recorder.attempts.length === count ? true : undefined));
    return { recorder, ids, releaseRest };
  };

  it('when a batch is published, then its first event goes alone and, once confirmed, the rest are in flight together, in order', async () => {
    const { recorder, ids, releaseRest } = await firstConfirmedRestHeld(5);
    expect(recorder.attempts).toEqual(ids);
    expect(recorder.published.map((event) => event.id)).toEqual([ids[0]]);
    releaseRest();
    await settled(ids);
    expect(recorder.published.map((event) => event.id)).toEqual(ids);
  });

  it('when one of the events in flight together fails, then it and the ones after it are given back and published again, in order', async () => {
    const { recorder, ids, releaseRest } = await firstConfirmedRestHeld(4);
    recorder.fail(1, () => new Error('broker lost it'));
    releaseRest();
    await settled(ids);
    // ids[1] failed; ids[2] and ids[3] were confirmed but given back with it: at least once.
    expect(recorder.published.map((event) => event.id)).toEqual([ids[0], ids[2], ids[3], ids[1], ids[2], ids[3]]);
  });

  it('when woken, then it publishes at once instead of at its next poll (an hour away)', async () => {
    const recorder = recordingBus();
    // Its first round (at once) publishes what is there; then it sleeps for the poll, an hour.
    const first = await enqueue(1);
    const running = relay(recorder.bus, { pollMs: 60 * 60 * 1000 });
    await settled(first);
    const ids = await enqueue(1);
    const woken = Date.now();
    running.wake();
    await eventually(() => (recorder.published.some((event) => event.id === ids[0]) ? true : undefined), 1000, 'the woken publish');
    expect(Date.now() - woken).toBeLessThan(1000);
  });
});
