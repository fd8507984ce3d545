import { renderAlertHtml, type AlertEmailLayout } from './alert-email-layout';
import type { AlertKind } from './alert-rules';

/** Where the e-mails send a customer, and whose name they carry (configuration). */
export interface MailLinks {
  /** BRAND_NAME: the product's name in every e-mail. */
  brandName: string;
  /** The account page (it opens whatever the balance). */
  accountUrl: string;
  /** The account page's alert settings. */
  settingsUrl: string;
  /** TOP_UP_URL: where credits are bought; undefined: the e-mails name no such action. */
  topUpUrl: string | undefined;
}

export interface AlertEmailInput extends MailLinks {
  kind: AlertKind;
  /** The pool's lowest-id product, e.g. `WHOIS API`. */
  productName: string;
  /** Every product of the pool, the named one included, in id order. */
  poolProducts: string[];
  credits: number;
  threshold: number;
  /** The account the alert is about. */
  account: { id: number; email: string };
}

export interface AlertEmail {
  subject: string;
  text: string;
  html: string;
}

function creditsText(credits: number): string {
  return credits === 1 ? '1 credit' : `${credits.toLocaleString('en-US')} credits`;
}

function lead(input: AlertEmailInput): string {
  return input.kind === 'low'
    ? `Your ${input.productName} balance is low: ${creditsText(input.credits)} left (your alert threshold is ${input.threshold.toLocaleString('en-US')}).`
    : `Your ${input.productName} balance has reached 0: no credits left. API calls that use it are refused until credits are added.`;
}

/** The one row of the pool: its name, and the products that share it when there are several. */
function poolRow(input: AlertEmailInput): { name: string; shared: string | undefined; credits: string } {
  const others = input.poolProducts.filter((name) => name !== input.productName);
  return {
    name: input.productName,
    shared: others.length > 0 ? `Shared with ${others.join(', ')}` : undefined,
    credits: input.credits.toLocaleString('en-US'),
  };
}

/** What the customer can do next: buy credits where the operator sells them, else only look. */
function nextStep(input: AlertEmailInput): { closing: string; buttonLabel: string; url: string } {
  if (input.topUpUrl !== undefined) {
    return { closing: 'Buy credits to keep your API calls running.', buttonLabel: 'Buy credits', url: input.topUpUrl };
  }
  return {
    closing: 'Your account page shows every balance and your usage.',
    buttonLabel: 'Open your account page',
    url: input.accountUrl,
  };
}

/**
 * Subject, plain text and HTML of one alert (CONTRACT §6): names the brand, the account, the
 * pool (one row, naming the products that share it), the credits left, what to do next and the
 * alert settings.
 */
export function renderAlertEmail(input: AlertEmailInput): AlertEmail {
  const subject =
    input.kind === 'low'
      ? `Low balance alert: ${input.productName} has ${creditsText(input.credits)} left`
      : `Zero balance alert: ${input.productName} has no credits left`;
  const accountLine = `This alert is about your ${input.brandName} account ${input.account.email} (account id ${input.account.id}).`;
  const row = poolRow(input);
  const step = nextStep(input);
  const settingsLine = 'To change these alerts or the threshold, open your account page:';
  const footer =
    input.kind === 'low'
      ? 'You get this e-mail because low-balance alerts are on for your account. You can turn them off or change the threshold on your account page.'
      : 'You get this e-mail because zero-balance alerts are on for your account. You can turn them off on your account page.';
  const text = [
    'Hello,',
    '',
    lead(input),
    '',
    accountLine,
    '',
    `  ${row.name}: ${creditsText(input.credits)} left`,
    ...(row.shared ? [`  (${row.shared})`] : []),
    '',
    step.closing,
    step.url,
    '',
    ...(step.url === input.accountUrl ? [] : ['Your balances and usage are on your account page:', input.accountUrl, '']),
    settingsLine,
    input.settingsUrl,
    '',
    footer,
    '',
    input.brandName,
    '',
  ].join('\n');
  const layout: AlertEmailLayout = {
    brandName: input.brandName,
    subject,
    heading: input.kind === 'low' ? 'Low balance alert' : 'Zero balance alert',
    empty: input.kind === 'zero',
    paragraphs: [lead(input), accountLine],
    pool: row,
    closing: step.closing,
    buttonLabel: step.buttonLabel,
    url: step.url,
    accountUrl: input.accountUrl,
    settingsUrl: input.settingsUrl,
    footer,
  };
  return { subject, text, html: renderAlertHtml(layout) };
}

/**
 * A Message-ID that is the same every time this alert is sent: a retry after a crash between
 * the SMTP answer and the "sent" mark carries the same id, so mail systems can drop the copy.
 */
export function alertMessageId(kind: AlertKind, eventId: string, from: string): string {
  return `<${kind}-balance-alert.${eventId}@${mailDomain(from)}>`;
}

/** The domain of the sender's address: the right-hand side of the e-mails' Message-IDs. */
export function mailDomain(from: string): string {
  return /@([A-Za-z0-9.-]+)>?\s*$/.exec(from)?.[1] ?? 'notifier.localhost';
}
