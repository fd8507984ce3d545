import type pg from 'pg';
import {
  claimDueWebhooks,
  disableWebhook,
  enqueueWebhook,
  finishWebhook,
  markWebhookDelivered,
  markWebhookFailed,
  recordWebhookAttempt,
} from '@platform/accounts';
import { withTransaction, type Queryable } from '@platform/db';
import type { AlertTransaction, NotifierStore } from '../domain/notifier-store';
import { findPool, findRecipient, markProcessed } from './alert-store';
import { claimDueMail, enqueueMail, markFailed, markSent } from './mail-outbox';

function alertTransaction(db: Queryable): AlertTransaction {
  return {
    findPool: (productId) => findPool(db, productId),
    markProcessed: (eventId, accountId, poolId) => markProcessed(db, eventId, accountId, poolId),
    findRecipient: (accountId) => findRecipient(db, accountId),
    enqueueWebhook: (webhook) => enqueueWebhook(db, webhook),
    enqueueMail: (mail) => enqueueMail(db, mail),
    disableWebhook: (accountId, url, reason) => disableWebhook(db, accountId, url, reason),
    recordWebhookAttempt: (attempt) => recordWebhookAttempt(db, attempt),
  };
}

/** The notifier's port to Postgres (domain/notifier-store.ts) on `pool`. */
export function createNotifierStore(pool: pg.Pool): NotifierStore {
  return {
    inTransaction: (work) => withTransaction(pool, (client) => work(alertTransaction(client))),
    mail: {
      claimDue: (queue, leaseMs) => claimDueMail(pool, queue, leaseMs),
      markSent: (id) => markSent(pool, id),
      markFailed: (id, error, retryInMs) => markFailed(pool, id, error, retryInMs),
    },
    webhooks: {
      claimDue: (limit, leaseMs, except) => claimDueWebhooks(pool, limit, leaseMs, except),
      recordAttempt: (attempt) => recordWebhookAttempt(pool, attempt),
      finish: (id, outcome) => finishWebhook(pool, id, outcome),
      markDelivered: (accountId, url) => markWebhookDelivered(pool, accountId, url),
      markFailed: (accountId, url, at) => markWebhookFailed(pool, accountId, url, at),
    },
  };
}
