import {
  errorMessage,
  extractTraceContext,
  inSpan,
  outsideTrace,
  SpanKind,
  SpanStatusCode,
  startWorkerLoop,
  untilRecorded,
  type Logger,
  type Span,
  type WorkerLoop,
} from '@platform/runtime';
import { backoffMs } from '@platform/events';
import type { Mailer } from '@platform/infrastructure';
import type { ClaimedMail, MailOutbox } from '../domain/notifier-store';
import type { NotifierMetrics } from '../metrics';

export interface MailDispatcherOptions {
  outbox: MailOutbox;
  mailer: Mailer;
  logger: Logger;
  metrics: NotifierMetrics;
  mailFrom: string;
  /** Sends the e-mails queued by the consumers of this event queue. */
  queue: string;
  /** How often the outbox is checked for due e-mails (retries, leftovers of a crash). Default 1 s. */
  pollMs?: number;
  /** How long a claimed e-mail is reserved for this process. Default 60 s. */
  leaseMs?: number;
  /** SMTP retry backoff. Defaults 1 s doubling to 5 min; retries never stop. */
  retryInitialMs?: number;
  retryMaxMs?: number;
}

/** wake(): sends what is due now (after an event queued e-mails); stop(): stops polling and waits for the e-mail being sent. */
export type MailDispatcher = WorkerLoop;

/**
 * Sends the mail outbox: claim one due e-mail (lease), send it, mark it sent; on an SMTP error
 * mark it failed with a later retry time. An e-mail the SMTP server accepted is marked sent
 * until the mark succeeds (Postgres or its pooler away for a while), so that it is not sent again
 * when its lease runs out. The window that remains: a crash (or a stop) after the SMTP server
 * accepted an e-mail and before it is marked sent resends it after the lease, with the same
 * Message-ID.
 */
export function startMailDispatcher(options: MailDispatcherOptions): MailDispatcher {
  const { outbox, mailer, logger, metrics } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  const retryInitialMs = options.retryInitialMs ?? 1000;
  const retryMaxMs = options.retryMaxMs ?? 300_000;
  const pollMs = options.pollMs ?? 1000;

  const sendOne = async (mail: ClaimedMail, span: Span, signal: AbortSignal): Promise<void> => {
    try {
      await mailer.send({
        messageId: mail.messageId,
        from: options.mailFrom,
        to: mail.recipient,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        headers: { 'X-Alert-Kind': mail.kind },
      });
    } catch (error) {
      const message = errorMessage(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message });
      const retryInMs = backoffMs(mail.attempts, retryInitialMs, retryMaxMs);
      metrics.emails.inc({ kind: mail.kind, result: 'failed' });
      logger.warn('alert e-mail not sent, will retry', {
        mailId: mail.id,
        kind: mail.kind,
        attempts: mail.attempts,
        retryInMs,
        error: message,
      });
      await outbox.markFailed(mail.id, message, retryInMs);
      return;
    }
    await untilRecorded(() => outbox.markSent(mail.id), {
      what: 'alert e-mail marked sent',
      everyMs: pollMs,
      signal,
      logger,
      fields: { mailId: mail.id, kind: mail.kind },
    });
    metrics.emails.inc({ kind: mail.kind, result: 'sent' });
    logger.info('alert e-mail sent', {
      mailId: mail.id,
      kind: mail.kind,
      accountId: mail.accountId,
      poolId: mail.poolId,
      attempts: mail.attempts,
    });
  };

  // Each send is part of the trace of the balance change that queued it.
  const sendTraced = (mail: ClaimedMail, signal: AbortSignal): Promise<void> =>
    inSpan(
      '@platform/notifier',
      'smtp send',
      { kind: SpanKind.CLIENT, parent: extractTraceContext({ traceparent: mail.traceparent }), attributes: { 'alert.kind': mail.kind } },
      (span) => sendOne(mail, span, signal),
    );

  // Outside the trace of whoever woke it (an event's handling): each send picks its own.
  return startWorkerLoop({
    name: 'mail dispatcher',
    pollMs,
    // Postgres unreachable: tried again every poll, as an idle outbox is (retries of an e-mail the
    // SMTP server refused follow the e-mail's own backoff above).
    backoff: { initialMs: pollMs, maxMs: pollMs },
    logger,
    work: (signal) =>
      outsideTrace(async () => {
        const mail = await outbox.claimDue(options.queue, leaseMs);
        if (!mail) return false;
        await sendTraced(mail, signal);
        return true;
      }),
    failure: (error) => ({
      message: 'mail outbox unavailable, will retry',
      fields: { error: errorMessage(error) },
    }),
  });
}
