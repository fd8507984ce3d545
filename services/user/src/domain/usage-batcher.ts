import { context, type Context } from '@opentelemetry/api';
import { unavailable } from '@platform/wire';
import type { Debit, DebitOutcome } from './usage-batch';

/**
 * How long a debit waits in its lane for the batch before it at most (CONTRACT §1: 503 within
 * 5 s). A batch commits in milliseconds; one that takes longer is stuck on Postgres, and the
 * debits behind it would then wait out its timeouts and their own (docs/operations.md "Timeouts").
 */
export const MAX_QUEUE_WAIT_MS = 1000;

export interface DebitBatcherOptions {
  /** Most debits in one batch (one transaction). */
  maxBatchSize: number;
  /** How long the first debit reaching an idle lane waits for company; 0: until the end of this turn of the event loop. */
  maxWaitMs: number;
  /** Batches that may be committing at once. A pool always uses the same lane: at most one batch per pool is in flight. */
  lanes: number;
  /** How long a debit waits for its batch to start at most (default MAX_QUEUE_WAIT_MS); then 503. */
  maxQueueWaitMs?: number;
  /** Applies the debits in one transaction; resolves (after COMMIT) with one outcome per debit, in order. */
  commit(debits: Debit[]): Promise<DebitOutcome[]>;
}

export interface DebitBatcher {
  /** Resolves once the debit's batch has committed (or rejects with the batch's failure). */
  submit(debit: Debit): Promise<DebitOutcome>;
}

interface Waiting {
  debit: Debit;
  resolve(outcome: DebitOutcome): void;
  reject(error: unknown): void;
  /** The submitter's trace context: a batch commits in its first debit's (its events join that trace). */
  context: Context;
  /** Later copies of the same requestId that arrived while this one was waiting or committing. */
  followers: Waiting[];
  /** When it joined its lane's queue (performance.now()). */
  queuedAt: number;
}

interface Lane {
  queue: Waiting[];
  committing: boolean;
  cancelTimer: (() => void) | undefined;
  /** Gives up on the queue's oldest debits while a batch is stuck (armed only while one commits). */
  expiry: NodeJS.Timeout | undefined;
}

/**
 * Group commit (single flight per lane): debits wait in their lane's queue; when the lane is
 * idle, the queue goes out as one batch after at most `maxWaitMs`; while a batch commits, the
 * next one forms, and it goes out the moment the first has committed. Debits of one pool are
 * decided in arrival order.
 *
 * A requestId that is already waiting or committing in this process is not batched twice: the
 * copy waits for the first. Same body: it gets the first's outcome (or failure). Another body:
 * 409 when the first was granted or replayed; otherwise (refused, conflict, failed) the first
 * left the requestId free, and the copy is submitted as a debit of its own.
 */
export function createDebitBatcher(options: DebitBatcherOptions): DebitBatcher {
  const lanes: Lane[] = Array.from({ length: options.lanes }, () => ({
    queue: [],
    committing: false,
    cancelTimer: undefined,
    expiry: undefined,
  }));
  const maxQueueWaitMs = options.maxQueueWaitMs ?? MAX_QUEUE_WAIT_MS;
  // The followers of each requestId being batched, by requestId. The map holds a leader's list
  // of followers, not the leader: V8 keeps a Map's outgrown hash tables with the entries they
  // held (for iterators), and an outgrown table in the old generation kept each debit it held,
  // with its promise and the request awaiting it, through every young-generation collection. A
  // list is emptied when its leader settles, so such a table keeps only requestIds and empty lists.
  const followersOf = new Map<string, Waiting[]>();

  const laneOf = (debit: Debit): Lane => lanes[(debit.accountId * 31 + debit.poolId) % lanes.length] as Lane;

  const settle = (leader: Waiting, result: { outcome: DebitOutcome } | { error: unknown }): void => {
    followersOf.delete(leader.debit.requestId);
    if ('outcome' in result) leader.resolve(result.outcome);
    else leader.reject(result.error);
    const taken = 'outcome' in result && (result.outcome.kind === 'granted' || result.outcome.kind === 'replayed');
    for (const follower of leader.followers.splice(0)) {
      if (follower.debit.digest === leader.debit.digest) {
        if ('outcome' in result) follower.resolve(result.outcome);
        else follower.reject(result.error);
      } else if (taken) {
        follower.resolve({ kind: 'conflict' });
      } else {
        submit(follower.debit).then(
          (outcome) => follower.resolve(outcome),
          (error: unknown) => follower.reject(error),
        );
      }
    }
  };

  // The queue is in arrival order: the expired debits are its head.
  const expire = (lane: Lane): void => {
    lane.expiry = undefined;
    const now = performance.now();
    let expired = 0;
    while (expired < lane.queue.length && now - (lane.queue[expired] as Waiting).queuedAt >= maxQueueWaitMs) expired += 1;
    const error = unavailable(new Error('the usage batch before this debit did not commit in time'), 1);
    for (const waiting of lane.queue.splice(0, expired)) settle(waiting, { error });
    armExpiry(lane);
  };

  const armExpiry = (lane: Lane): void => {
    const oldest = lane.queue[0];
    if (!lane.committing || lane.expiry !== undefined || oldest === undefined) return;
    lane.expiry = setTimeout(() => expire(lane), Math.max(0, oldest.queuedAt + maxQueueWaitMs - performance.now())).unref();
  };

  const flush = (lane: Lane): void => {
    lane.cancelTimer?.();
    lane.cancelTimer = undefined;
    if (lane.committing || lane.queue.length === 0) return;
    clearTimeout(lane.expiry);
    lane.expiry = undefined;
    const batch = lane.queue.splice(0, options.maxBatchSize);
    lane.committing = true;
    // More debits than one batch holds: the rest wait for it, within their deadline too.
    armExpiry(lane);
    Promise.resolve()
      .then(() => context.with((batch[0] as Waiting).context, () => options.commit(batch.map((waiting) => waiting.debit))))
      .then(
        (outcomes) => {
          batch.forEach((waiting, index) => {
            const outcome = outcomes[index];
            settle(waiting, outcome ? { outcome } : { error: new Error('a batch answered fewer outcomes than debits') });
          });
        },
        (error: unknown) => {
          for (const waiting of batch) settle(waiting, { error });
        },
      )
      .finally(() => {
        lane.committing = false;
        // The debits that arrived meanwhile have waited a whole commit already: they go now.
        if (lane.queue.length > 0) flush(lane);
      })
      .catch(() => undefined);
  };

  const schedule = (lane: Lane): void => {
    if (lane.committing) {
      armExpiry(lane);
      return;
    }
    if (lane.queue.length >= options.maxBatchSize) {
      flush(lane);
      return;
    }
    if (lane.cancelTimer) return;
    if (options.maxWaitMs > 0) {
      const timer = setTimeout(() => flush(lane), options.maxWaitMs);
      lane.cancelTimer = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(() => flush(lane));
      lane.cancelTimer = () => clearImmediate(immediate);
    }
  };

  function submit(debit: Debit): Promise<DebitOutcome> {
    return new Promise<DebitOutcome>((resolve, reject) => {
      const waiting: Waiting = { debit, resolve, reject, context: context.active(), followers: [], queuedAt: performance.now() };
      const followers = followersOf.get(debit.requestId);
      if (followers) {
        followers.push(waiting);
        return;
      }
      followersOf.set(debit.requestId, waiting.followers);
      const lane = laneOf(debit);
      lane.queue.push(waiting);
      schedule(lane);
    });
  }

  return { submit };
}
