import type { WebhookDisabledReason } from '@platform/accounts';
import { mailDomain, type AlertEmail, type MailLinks } from './alert-email';
import { renderAlertHtml } from './alert-email-layout';
import type { QueuedMail } from './notifier-store';

export interface WebhookDisabledInput {
  links: MailLinks;
  /** MAIL_FROM: the Message-ID's domain. */
  mailFrom: string;
  /** The event queue of this deployment: its dispatcher sends the e-mail. */
  queue: string;
  account: { id: number; email: string };
  /** The account's alert address (the settings' e-mail, else the account's). */
  recipient: string;
  url: string;
  reason: WebhookDisabledReason;
  disabledAt: Date;
}

const WHY: Record<WebhookDisabledReason, string> = {
  gone: 'its address answered 410 Gone, which says the endpoint no longer exists',
  failing: 'every delivery to it has failed for 5 days',
};

/** Subject, text and HTML of the notice (CONTRACT §6.1). */
export function renderWebhookDisabledEmail(input: WebhookDisabledInput): AlertEmail {
  const { links } = input;
  const subject = `Balance webhook disabled: ${input.url}`;
  const lead = `We stopped sending balance events to your webhook ${input.url}: ${WHY[input.reason]}.`;
  const accountLine = `This is about your ${links.brandName} account ${input.account.email} (account id ${input.account.id}).`;
  const closing =
    'Balance events that were still waiting are not sent. Once the endpoint works, set the webhook again on your account page to turn it back on.';
  const footer = 'You get this e-mail because a balance webhook is set for your account.';
  const text = ['Hello,', '', lead, '', accountLine, '', closing, links.settingsUrl, '', footer, '', links.brandName, ''].join('\n');
  const html = renderAlertHtml({
    brandName: links.brandName,
    subject,
    heading: 'Balance webhook disabled',
    empty: true,
    paragraphs: [lead, accountLine],
    pool: undefined,
    closing,
    buttonLabel: 'Open your webhook settings',
    url: links.settingsUrl,
    accountUrl: links.accountUrl,
    settingsUrl: links.settingsUrl,
    footer,
  });
  return { subject, text, html };
}

/**
 * The notice as the outbox queues it. Its Message-ID names the account and the moment of the
 * disabling, so that a retried send carries the same one.
 */
export function webhookDisabledMail(input: WebhookDisabledInput): QueuedMail {
  return {
    queue: input.queue,
    messageId: `<webhook-disabled.${input.account.id}.${input.disabledAt.getTime()}@${mailDomain(input.mailFrom)}>`,
    eventId: null,
    accountId: input.account.id,
    poolId: null,
    kind: 'webhook-disabled',
    recipient: input.recipient,
    ...renderWebhookDisabledEmail(input),
  };
}
