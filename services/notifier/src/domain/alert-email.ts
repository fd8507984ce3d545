import type { AlertKind } from './alert-rules';

export interface AlertEmailInput {
  kind: AlertKind;
  /** The pool's lowest-id product, e.g. `WHOIS API`. */
  productName: string;
  /** Every product of the pool, the named one included, in id order. */
  poolProducts: string[];
  credits: number;
  threshold: number;
  settingsUrl: string;
}

export interface AlertEmail {
  subject: string;
  text: string;
  html: string;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] ?? character);
}

function creditsText(credits: number): string {
  return credits === 1 ? '1 credit' : `${credits.toLocaleString('en-US')} credits`;
}

function paragraphs(input: AlertEmailInput): string[] {
  const shared = input.poolProducts.filter((name) => name !== input.productName);
  const sharedLine = shared.length > 0 ? `These credits are shared with ${shared.join(', ')}.` : undefined;
  const lead =
    input.kind === 'low'
      ? `Your ${input.productName} balance is low: ${creditsText(input.credits)} left (your alert threshold is ${input.threshold.toLocaleString('en-US')}).`
      : `Your ${input.productName} balance has reached 0: no credits left. API calls will be refused until you top up.`;
  return [lead, ...(sharedLine ? [sharedLine] : []), 'Top up your balance to keep your API calls running.'];
}

/** Subject, plain text and HTML of one alert (CONTRACT §6): names the product, the credits left and the settings page. */
export function renderAlertEmail(input: AlertEmailInput): AlertEmail {
  const subject =
    input.kind === 'low'
      ? `Low balance alert: ${input.productName} has ${creditsText(input.credits)} left`
      : `Zero balance alert: ${input.productName} has no credits left`;
  const body = paragraphs(input);
  const settingsLine = 'To change these alerts or the threshold, open your notification settings:';
  const text = ['Hello,', '', ...body.flatMap((line) => [line, '']), settingsLine, input.settingsUrl, ''].join('\n');
  const url = escapeHtml(input.settingsUrl);
  const html = [
    '<!DOCTYPE html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body>`,
    '<p>Hello,</p>',
    ...body.map((line) => `<p>${escapeHtml(line)}</p>`),
    `<p>${escapeHtml(settingsLine)} <a href="${url}">${url}</a></p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}

/**
 * A Message-ID that is the same every time this alert is sent: a retry after a crash between
 * the SMTP answer and the "sent" mark carries the same id, so mail systems can drop the copy.
 */
export function alertMessageId(kind: AlertKind, eventId: string, from: string): string {
  const domain = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from)?.[1] ?? 'notifier.localhost';
  return `<${kind}-balance-alert.${eventId}@${domain}>`;
}
