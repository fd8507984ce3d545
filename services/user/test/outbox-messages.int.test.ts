import { randomUUID } from 'node:crypto';
import type { BalanceChanged } from '@platform/events';
import { eventually, uniqueId } from '@platform/testing';
import { createBatchCommit } from '../src/domain/commit-usage-batch';
import { ADMIN_TOKEN } from './harness';
import { useObservedRelay } from './rabbitmq';
import { usageCommitPorts } from './usage-commit';

/** The bound of these tests: about 10 events per message (an event is ~190 bytes). */
const MAX_BYTES = 2048;

interface Row {
  id: string;
  published: boolean;
  events: BalanceChanged[];
}

/**
 * CONTRACT §6 (revised): a commit's events are one outbox row and one message on balance.events
 * whose body is the JSON array of them; a message over OUTBOX_MESSAGE_MAX_BYTES is split. Real
 * Postgres (a database of its own) and RabbitMQ (an exchange of its own, observed on the wire).
 */
describe('outbox: one message per commit, split above the bound', () => {
  const relay = useObservedRelay('messages', { OUTBOX_POLL_MS: '100', OUTBOX_MESSAGE_MAX_BYTES: String(MAX_BYTES) });

  /** Accounts inserted straight into the tables (no outbox row of their own). */
  const accounts = (count: number) => Promise.all(Array.from({ length: count }, () => relay.h.account({ 1: 100 })));

  /** One usage batch: a debit of one credit on each account's lookup pool, one commit (no pool reaches 0: one statement). */
  const batch = async (accountIds: readonly number[]): Promise<void> => {
    const commit = createBatchCommit(usageCommitPorts(relay.h));
    const outcomes = await commit(
      accountIds.map((accountId) => ({ requestId: randomUUID(), digest: 'd', accountId, poolId: 1, productId: 1, units: 1 })),
    );
    expect(outcomes.every((outcome) => outcome.kind === 'granted')).toBe(true);
  };

  /** The outbox rows holding these accounts' events (each row: its events, in order). */
  const rowsOf = async (accountIds: readonly number[]): Promise<Row[]> => {
    const result = await relay.h.pool.query<{ id: string; published_at: Date | null; payload: BalanceChanged | BalanceChanged[] }>(
      `SELECT id, published_at, payload FROM outbox_events
        WHERE seq IN (SELECT seq FROM outbox_event_list WHERE (payload->>'accountId')::int = ANY($1::int[]))
        ORDER BY seq`,
      [accountIds],
    );
    return result.rows.map((row) => ({
      id: row.id,
      published: row.published_at !== null,
      events: Array.isArray(row.payload) ? row.payload : [row.payload],
    }));
  };

  /** The messages that reached the exchange with any of these accounts' events. */
  const messagesOf = (accountIds: readonly number[]) =>
    relay.observer.bodies.filter((body) => body.events.some((event) => accountIds.includes(event.accountId)));

  const allArrived = (accountIds: readonly number[], events: number) =>
    eventually(
      () => (messagesOf(accountIds).flatMap((body) => body.events).length >= events ? true : undefined),
      15_000,
      `${events} events`,
    );

  /** One usage batch over `count` new accounts, and the one outbox row it wrote. */
  const batchRow = async (count: number): Promise<{ ids: number[]; row: Row }> => {
    const ids = (await accounts(count)).map((account) => account.id);
    await batch(ids);
    const rows = await rowsOf(ids);
    expect(rows).toHaveLength(1);
    return { ids, row: rows[0] as Row };
  };
  const allPublished = (accountIds: readonly number[]) =>
    eventually(async () => ((await rowsOf(accountIds)).every((row) => row.published) ? true : undefined), 15_000, 'rows published');

  it('when a usage batch debits 5 accounts, then its 5 events are one outbox row and one message whose body is their array, each event with its own id', async () => {
    const { ids, row } = await batchRow(5);
    expect(row.events.map((event) => [event.accountId, event.previousCredits, event.credits, event.cause])).toEqual(
      ids.map((id) => [id, 100, 99, 'usage']),
    );
    expect(row.id).toBe(row.events[0]?.id);
    expect(new Set(row.events.map((event) => event.id)).size).toBe(5);

    await allArrived(ids, 5);
    await allPublished(ids);
    const messages = messagesOf(ids);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ array: true, events: row.events });
    // The pending-events metric counts the events inside the rows; nothing is left.
    expect((await relay.h.http.get('/metrics')).text).toMatch(/^outbox_pending_events\{service="user"\} 0$/m);
  });

  it('when a batch’s events exceed OUTBOX_MESSAGE_MAX_BYTES, then its row is published as several messages, each within the bound, that carry every event once, in order', async () => {
    const { ids, row } = await batchRow(40);
    expect(Buffer.byteLength(JSON.stringify(row.events))).toBeGreaterThan(3 * MAX_BYTES);

    await allArrived(ids, 40);
    await allPublished(ids);
    const messages = messagesOf(ids);
    expect(messages.length).toBeGreaterThanOrEqual(4);
    for (const message of messages) expect(message.bytes).toBeLessThanOrEqual(MAX_BYTES);
    expect(messages.slice(0, -1).every((message) => message.array && message.events.length > 1)).toBe(true);
    expect(messages.flatMap((message) => message.events)).toEqual(row.events);
  });

  it('when an account is created with credits on two pools, then that commit’s two top-ups are one message', async () => {
    const res = await relay.h.http
      .post('/admin/v1/accounts')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ email: `${uniqueId('messages')}@example.test`, credits: { 1: 10, 14: 20 } });
    expect(res.status).toBe(201);
    const id = res.body.id as number;
    await allArrived([id], 2);
    await allPublished([id]);
    const messages = messagesOf([id]);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.array).toBe(true);
    expect(messages[0]?.events.map((event) => [event.productId, event.previousCredits, event.credits, event.cause])).toEqual([
      [1, 0, 10, 'top-up'],
      [14, 0, 20, 'top-up'],
    ]);
  });
});
