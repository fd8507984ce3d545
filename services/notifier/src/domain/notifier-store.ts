import type { ClaimedWebhook, ProductPool, QueuedWebhook, WebhookAttempt, WebhookDisabledReason } from '@platform/accounts';
import type { AlertSettings } from './alert-rules';
import type { MailKind } from './mail-kind';

/** Who gets an account's alerts, and how (the user service's tables, read-only; no settings row = defaults). */
export interface Recipient {
  /** Where the alerts go (the settings' e-mail, else the account's). */
  email: string;
  /** The account's own e-mail: names the account in the alerts. */
  accountEmail: string;
  webhookEnabled: boolean;
  settings: AlertSettings;
}

export interface QueuedMail {
  /** The event queue of the deployment that sends it. */
  queue: string;
  messageId: string;
  /** The balance event it follows; null for an e-mail that follows none (a disabled webhook). */
  eventId: string | null;
  accountId: number;
  /** The pool it is about; null for an e-mail about no pool. */
  poolId: number | null;
  kind: MailKind;
  recipient: string;
  subject: string;
  text: string;
  html: string;
}

export interface ClaimedMail extends QueuedMail {
  id: number;
  /** W3C traceparent of the event handling that queued it; null when tracing was off. */
  traceparent: string | null;
  /** Attempts so far, this one included. */
  attempts: number;
}

/** What one balance change reads and writes, all in one transaction (store/notifier-store.ts). */
export interface AlertTransaction {
  /** The pool a product belongs to (the event names the pool's lowest product id; any member works). */
  findPool(productId: number): Promise<ProductPool | undefined>;
  /** Records an event id; false when it was already recorded (the event was handled before). */
  markProcessed(eventId: string, accountId: number, poolId: number): Promise<boolean>;
  findRecipient(accountId: number): Promise<Recipient | undefined>;
  /** Queues a balance webhook; the same `webhook-id` is queued only once. */
  enqueueWebhook(webhook: QueuedWebhook): Promise<void>;
  /** Queues an alert e-mail; the same Message-ID is queued only once. */
  enqueueMail(mail: QueuedMail): Promise<void>;
  /** Disables the account's webhook at `url` and gives up its events; true only for the call that disabled it. */
  disableWebhook(accountId: number, url: string, reason: WebhookDisabledReason): Promise<boolean>;
  /** Lists a webhook attempt for the account (the one that disabled the webhook, with the disabling). */
  recordWebhookAttempt(attempt: WebhookAttempt): Promise<void>;
}

/** The mail outbox the mail dispatcher sends. */
export interface MailOutbox {
  /**
   * Takes the oldest due e-mail of `queue` and leases it for `leaseMs` (another notifier skips it
   * meanwhile; if this one dies, the lease runs out and the e-mail is due again).
   */
  claimDue(queue: string, leaseMs: number): Promise<ClaimedMail | undefined>;
  markSent(id: number): Promise<void>;
  markFailed(id: number, error: string, retryInMs: number): Promise<void>;
}

/** The balance-webhook queue the webhook dispatcher sends. */
export interface WebhookQueue {
  /**
   * Up to `limit` due deliveries, each leased for `leaseMs` (replicas never claim one together),
   * but for those `except` names (still in flight here).
   */
  claimDue(limit: number, leaseMs: number, except?: readonly number[]): Promise<ClaimedWebhook[]>;
  /** Lists an attempt for the account. */
  recordAttempt(attempt: WebhookAttempt): Promise<void>;
  finish(id: number, outcome: { delivered: boolean; nextAttemptAt: Date | undefined }): Promise<void>;
  /** A delivery to the account's `url` succeeded: it is no longer failing. */
  markDelivered(accountId: number, url: string): Promise<void>;
  /** A delivery to `url` failed at `at`: since when it has failed without a delivery; undefined when `url` is no longer the enabled webhook. */
  markFailed(accountId: number, url: string, at: Date): Promise<Date | undefined>;
}

/** The notifier's tables (and the user service's it reads), as its use cases and entry points need them. */
export interface NotifierStore {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  inTransaction<T>(work: (tx: AlertTransaction) => Promise<T>): Promise<T>;
  mail: MailOutbox;
  webhooks: WebhookQueue;
}
