import { RESEARCH_POOL_NAMES } from '@platform/testing';
import { alertMessageId, renderAlertEmail, type AlertEmailInput } from './alert-email';

const settingsUrl = 'http://127.0.0.1:8082/account/#alerts';
const accountUrl = 'http://127.0.0.1:8082/account/';
const base = {
  brandName: 'Acme Data',
  accountUrl,
  settingsUrl,
  topUpUrl: undefined,
  account: { id: 42, email: 'owner@example.com' },
  threshold: 10,
} satisfies Partial<AlertEmailInput>;
const RESEARCH = RESEARCH_POOL_NAMES;

/** The e-mail of an alert about `productName`'s pool (`poolProducts`) at `credits`, for the base account, with `extra`. */
const render = (
  kind: AlertEmailInput['kind'],
  productName: string,
  poolProducts: string[],
  credits: number,
  extra: Partial<AlertEmailInput> = {},
) => renderAlertEmail({ ...base, kind, productName, poolProducts, credits, ...extra });

describe('alert e-mail', () => {
  it('when the alert is low, then the subject, text and HTML name the product, the credits left, the account and the settings page', () => {
    const mail = render('low', 'WHOIS API', ['WHOIS API', 'Bulk WHOIS API'], 7);
    expect(mail.subject).toBe('Low balance alert: WHOIS API has 7 credits left');
    expect(mail.text).toContain('Your WHOIS API balance is low: 7 credits left (your alert threshold is 10).');
    expect(mail.text).toContain('This alert is about your Acme Data account owner@example.com (account id 42).');
    expect(mail.text).toContain('(Shared with Bulk WHOIS API)');
    expect(mail.text).toContain(settingsUrl);
    expect(mail.html).toContain('Acme Data</td>');
    expect(mail.html).toContain('owner@example.com');
    expect(mail.html).toContain(`href="${settingsUrl}"`);
  });

  it('when the pool is shared, then it is one row naming every product that shares it', () => {
    const mail = render('low', 'Domain Research Suite', RESEARCH, 45);
    const rows = [
      ...mail.html.matchAll(/<tr><td[^>]*><strong>([^<]*)<\/strong><br><span[^>]*>([^<]*)<\/span><\/td><td[^>]*>([^<]*)<\/td><\/tr>/g),
    ];
    expect(rows.map((row) => [row[1], row[3]])).toEqual([['Domain Research Suite', '45']]);
    expect(rows[0]?.[2]).toBe(`Shared with ${RESEARCH.slice(1).join(', ').replace('&', '&amp;')}`);
    expect(mail.text.match(/45 credits left/g)).toHaveLength(2);
    expect(mail.html).not.toMatch(/<style|<link|<script|class=/);
  });

  it('when TOP_UP_URL is set, then the button buys credits there', () => {
    const mail = render('zero', 'WHOIS API', ['WHOIS API'], 0, { topUpUrl: 'https://billing.example.com/buy' });
    expect(mail.html).toMatch(/<a href="https:\/\/billing\.example\.com\/buy" style="display:inline-block;[^"]*">Buy credits<\/a>/);
    expect(mail.text).toContain('Buy credits to keep your API calls running.\nhttps://billing.example.com/buy');
    expect(mail.text).toContain(`Your balances and usage are on your account page:\n${accountUrl}`);
    expect(mail.html).toContain(`<a href="${accountUrl}" style="color:#1d4ed8;">Open your account page</a>`);
  });

  it('when TOP_UP_URL is unset, then the plain text holds everything and names no top-up', () => {
    const mail = render('zero', 'WHOIS API', ['WHOIS API', 'Bulk WHOIS API'], 0);
    expect(mail.text).toBe(
      [
        'Hello,',
        '',
        'Your WHOIS API balance has reached 0: no credits left. API calls that use it are refused until credits are added.',
        '',
        'This alert is about your Acme Data account owner@example.com (account id 42).',
        '',
        '  WHOIS API: 0 credits left',
        '  (Shared with Bulk WHOIS API)',
        '',
        'Your account page shows every balance and your usage.',
        accountUrl,
        '',
        'To change these alerts or the threshold, open your account page:',
        settingsUrl,
        '',
        'You get this e-mail because zero-balance alerts are on for your account. You can turn them off on your account page.',
        '',
        'Acme Data',
        '',
      ].join('\n'),
    );
    expect(`${mail.text}${mail.html}`).not.toMatch(/top up|buy/i);
    expect(mail.html).toMatch(new RegExp(`<a href="${accountUrl}" style="display:inline-block;[^"]*">Open your account page</a>`));
  });

  it('when the alert is zero, then the subject begins with Zero balance alert', () => {
    const mail = render('zero', 'Domain Research Suite', ['Domain Research Suite'], 0);
    expect(mail.subject).toBe('Zero balance alert: Domain Research Suite has no credits left');
    expect(mail.text).toContain('no credits left');
    expect(mail.text).not.toContain('Shared with');
  });

  it('when a name holds HTML characters, then the HTML part escapes them', () => {
    const mail = render('low', 'Website Contacts & Categorization Database', [], 1, {
      threshold: 5,
      accountUrl: 'https://x.test/a?b=1&c=2',
    });
    expect(mail.html).toContain('Website Contacts &amp; Categorization Database');
    expect(mail.html).toContain('href="https://x.test/a?b=1&amp;c=2"');
    expect(mail.text).toContain('1 credit left');
  });

  it('when the same alert is rendered twice, then the Message-ID is the same', () => {
    const id = alertMessageId('low', '8f7c2a52-5c8e-4f1e-9d8a-0d6f5e1b2c3d', 'Account alerts <alerts@example.com>');
    expect(id).toBe('<low-balance-alert.8f7c2a52-5c8e-4f1e-9d8a-0d6f5e1b2c3d@example.com>');
    expect(alertMessageId('zero', 'x', 'nobody')).toBe('<zero-balance-alert.x@notifier.localhost>');
  });
});
