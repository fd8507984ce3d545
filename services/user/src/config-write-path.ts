import { z } from 'zod';
import { env } from '@platform/runtime';

/**
 * The write path's tuning: the outbox relay (publish, retry, sweep) and the usage batches
 * (size, wait, lanes, requestId retention). Spread into the user service's configuration
 * (config.ts), in this order, as docs/configuration.md lists them.
 */
export const writePathVariables = {
  OUTBOX_POLL_MS: env.positiveInt(500).describe('How often the outbox relay looks for unpublished events when nothing woke it (ms).'),
  OUTBOX_WAKE_DELAY_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(50)
    .describe(
      "How long a commit's wake of the relay waits for others, so that one round publishes the events of several usage batches (ms, 0–10000; 0: at once).",
    ),
  OUTBOX_RETRY_INITIAL_MS: env
    .positiveInt(500)
    .describe('Relay backoff after a failed publish: the first pause (ms), doubling up to `OUTBOX_RETRY_MAX_MS`.'),
  OUTBOX_RETRY_MAX_MS: env.positiveInt(10_000).describe('Relay backoff after a failed publish: the longest pause (ms).'),
  OUTBOX_RETENTION_HOURS: z.coerce
    .number()
    .int()
    .min(0)
    .default(24)
    .describe('How long a published event stays in the outbox before it is swept (hours; 0: until the next sweep).'),
  OUTBOX_SWEEP_MS: env.positiveInt(10_000).describe('Pause between sweeps of published events (ms).'),
  // 64 KiB; at least 1 KiB (a few events), at most 16 MiB (RabbitMQ 4's default max_message_size).
  OUTBOX_MESSAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(65_536)
    .describe(
      "Largest `balance.events` message the relay publishes with several events (1024–16777216 bytes); a commit's events beyond it go as several messages (docs/architecture.md).",
    ),
  USAGE_BATCH_MAX_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    // 2000: with many debits in flight (a product's batches), a lane commits whatever queued
    // while the last batch committed; at 500 it cut them short and Postgres, one statement at a
    // time, became the limit (docs/benchmarks.md, "Batch debits at 32 connections").
    .default(2000)
    .describe('Most usage debits in one batch, one commit (1–10000).'),
  USAGE_BATCH_MAX_WAIT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(0)
    .describe('Longest wait of a debit for its batch to form (ms, 0–1000; 0: the rest of the event-loop turn).'),
  USAGE_BATCH_LANES: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(1)
    .describe('Usage batches committing at once (1–64); a pool always uses the same lane.'),
  // CONTRACT §9: a requestId is remembered for at least 24 hours.
  USAGE_REQUEST_RETENTION_HOURS: z.coerce
    .number()
    .int()
    .min(24)
    .default(25)
    .describe('How long a usage `requestId` and its answer are remembered (hours, at least 24).'),
  USAGE_REQUEST_SWEEP_MS: env.positiveInt(10_000).describe('Pause between sweeps of expired usage `requestId`s (ms).'),
};

type WritePathVariables = z.output<z.ZodObject<typeof writePathVariables>>;

/** What the write path's variables become in UserConfig. */
export function writePathSettings(parsed: WritePathVariables) {
  return {
    /** How often the relay looks for unpublished events when nothing woke it (OUTBOX_POLL_MS). */
    outboxPollMs: parsed.OUTBOX_POLL_MS,
    /**
     * How long the relay lets a commit's wake wait for others (OUTBOX_WAKE_DELAY_MS): under load
     * one round then publishes the events of several usage batches. 0: at once.
     */
    outboxWakeDelayMs: parsed.OUTBOX_WAKE_DELAY_MS,
    /** Relay backoff after a failed publish: initial, doubling up to max (OUTBOX_RETRY_INITIAL_MS / _MAX_MS). */
    outboxRetryInitialMs: parsed.OUTBOX_RETRY_INITIAL_MS,
    outboxRetryMaxMs: parsed.OUTBOX_RETRY_MAX_MS,
    /** How long a published event stays in the outbox before it is swept (OUTBOX_RETENTION_HOURS; 0: at the next sweep). */
    outboxRetentionHours: parsed.OUTBOX_RETENTION_HOURS,
    /** Pause between sweeps of published events (OUTBOX_SWEEP_MS). */
    outboxSweepMs: parsed.OUTBOX_SWEEP_MS,
    /**
     * Largest `balance.events` message the relay publishes with several events (OUTBOX_MESSAGE_MAX_BYTES,
     * default 64 KiB, about 280 events); a commit's events beyond it go as several messages.
     */
    outboxMessageMaxBytes: parsed.OUTBOX_MESSAGE_MAX_BYTES,
    /** Usage debits per batch (one transaction) at most (USAGE_BATCH_MAX_SIZE). */
    usageBatchMaxSize: parsed.USAGE_BATCH_MAX_SIZE,
    /** How long the first debit reaching an idle batch lane waits for others (USAGE_BATCH_MAX_WAIT_MS; 0: the rest of the event-loop turn). */
    usageBatchMaxWaitMs: parsed.USAGE_BATCH_MAX_WAIT_MS,
    /**
     * Usage batches committing at once (USAGE_BATCH_LANES); one pool is always in one lane. One
     * by default: on two cores, two lanes halved the batches of usage-many-accounts and cost
     * ~15 % more CPU per debit. More lanes suit more cores.
     */
    usageBatchLanes: parsed.USAGE_BATCH_LANES,
    /** How long a usage requestId's answer is kept, at least 24 h (USAGE_REQUEST_RETENTION_HOURS). */
    usageRequestRetentionHours: parsed.USAGE_REQUEST_RETENTION_HOURS,
    /** Pause between sweeps of expired usage requestIds (USAGE_REQUEST_SWEEP_MS). */
    usageRequestSweepMs: parsed.USAGE_REQUEST_SWEEP_MS,
  };
}
