import { alertMessageId, renderAlertEmail } from './alert-email';

const settingsUrl = 'http://127.0.0.1:8082/account/#alerts';

describe('alert e-mail', () => {
  it('when the alert is low, then the subject, text and HTML name the product, the credits left and the settings page', () => {
    const mail = renderAlertEmail({
      kind: 'low',
      productName: 'WHOIS API',
      poolProducts: ['WHOIS API', 'Bulk WHOIS API'],
      credits: 7,
      threshold: 10,
      settingsUrl,
    });
    expect(mail.subject).toBe('Low balance alert: WHOIS API has 7 credits left');
    expect(mail.text).toContain('Your WHOIS API balance is low: 7 credits left (your alert threshold is 10).');
    expect(mail.text).toContain('shared with Bulk WHOIS API');
    expect(mail.text).toContain(settingsUrl);
    expect(mail.html).toContain('7 credits left');
    expect(mail.html).toContain(`href="${settingsUrl}"`);
  });

  it('when rendered, then the HTML is laid out for mail clients: inline styles only, a button to the page, the pool in a table', () => {
    const mail = renderAlertEmail({
      kind: 'low',
      productName: 'WHOIS API',
      poolProducts: ['WHOIS API', 'Bulk WHOIS API'],
      credits: 1234,
      threshold: 2000,
      settingsUrl,
    });
    expect(mail.html).not.toMatch(/<style|<link|<script|class=/);
    expect(mail.html).toMatch(new RegExp(`<a href="${settingsUrl}" style="display:inline-block;[^"]*">Open your account page</a>`));
    const cells = [...mail.html.matchAll(/<td[^>]*>([^<]*)<\/td><td[^>]*>([^<]*)<\/td>/g)].map((match) => [match[1], match[2]]);
    expect(cells).toEqual([
      ['WHOIS API', '1,234'],
      ['Bulk WHOIS API', '1,234'],
    ]);
    expect(mail.html).toContain('These products share one balance');
  });

  it('when rendered, then the plain text holds everything the HTML says', () => {
    const mail = renderAlertEmail({
      kind: 'zero',
      productName: 'WHOIS API',
      poolProducts: ['WHOIS API', 'Bulk WHOIS API'],
      credits: 0,
      threshold: 10,
      settingsUrl,
    });
    expect(mail.text).toBe(
      [
        'Hello,',
        '',
        'Your WHOIS API balance has reached 0: no credits left. API calls will be refused until you top up.',
        '',
        'These credits are shared with Bulk WHOIS API.',
        '',
        '  WHOIS API: 0 credits left',
        '  Bulk WHOIS API: 0 credits left',
        '',
        'Top up your balance to keep your API calls running.',
        '',
        'To change these alerts or the threshold, open your account page:',
        settingsUrl,
        '',
        'You get this e-mail because zero-balance alerts are on for your account. You can turn them off on your account page.',
        '',
      ].join('\n'),
    );
  });

  it('when the alert is zero, then the subject begins with Zero balance alert', () => {
    const mail = renderAlertEmail({
      kind: 'zero',
      productName: 'Domain Research Suite',
      poolProducts: ['Domain Research Suite'],
      credits: 0,
      threshold: 10,
      settingsUrl,
    });
    expect(mail.subject).toBe('Zero balance alert: Domain Research Suite has no credits left');
    expect(mail.text).toContain('no credits left');
    expect(mail.text).not.toContain('shared with');
  });

  it('when a name holds HTML characters, then the HTML part escapes them', () => {
    const mail = renderAlertEmail({
      kind: 'low',
      productName: 'Website Contacts & Categorization Database',
      poolProducts: [],
      credits: 1,
      threshold: 5,
      settingsUrl: 'https://x.test/a?b=1&c=2',
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
