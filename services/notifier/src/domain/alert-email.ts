import { renderAlertHtml } from './alert-email-layout';
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

/** Subject, plain text and HTML of one alert (CONTRACT §6): names the product, the credits left and the account page's alert settings. */
export function renderAlertEmail(input: AlertEmailInput): AlertEmail {
  const subject =
    input.kind === 'low'
      ? `Low balance alert: ${input.productName} has ${creditsText(input.credits)} left`
      : `Zero balance alert: ${input.productName} has no credits left`;
  const [lead, ...rest] = paragraphs(input);
  const closing = rest.pop() as string;
  const products = (input.poolProducts.length > 0 ? input.poolProducts : [input.productName]).map((name) => ({
    name,
    credits: input.credits.toLocaleString('en-US'),
  }));
  const settingsLine = 'To change these alerts or the threshold, open your account page:';
  const footer =
    input.kind === 'low'
      ? 'You get this e-mail because low-balance alerts are on for your account. You can turn them off or change the threshold on your account page.'
      : 'You get this e-mail because zero-balance alerts are on for your account. You can turn them off on your account page.';
  const text = [
    'Hello,',
    '',
    lead,
    '',
    ...rest.flatMap((line) => [line, '']),
    ...products.map((product) => `  ${product.name}: ${creditsText(input.credits)} left`),
    '',
    closing,
    '',
    settingsLine,
    input.settingsUrl,
    '',
    footer,
    '',
  ].join('\n');
  const html = renderAlertHtml({
    subject,
    heading: input.kind === 'low' ? 'Low balance alert' : 'Zero balance alert',
    empty: input.kind === 'zero',
    paragraphs: [lead as string, ...rest],
    products,
    closing,
    buttonLabel: 'Open your account page',
    url: input.settingsUrl,
    footer,
  });
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
