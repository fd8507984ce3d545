import { ConfigError } from '@platform/runtime';
import { loadConfig } from './config';
import { openInfrastructure } from '@platform/infrastructure';
import { NOTIFIER_NEEDS } from './deps';
import { silentLogger } from '@platform/testing';

describe('notifier config', () => {
  it('when started standalone without infrastructure URLs, then one error names every missing variable', () => {
    expect(() => loadConfig({})).toThrow(ConfigError);
    expect(() => loadConfig({})).toThrow(/DATABASE_URL: Required; AMQP_URL: Required; SMTP_URL: Required/);
  });

  it('when values are bad, then they are reported together', () => {
    expect(() =>
      loadConfig({ DATABASE_URL: 'mysql://x', AMQP_URL: 'amqp://localhost', SMTP_URL: 'smtp://localhost', NOTIFIER_PORT: 'abc' }),
    ).toThrow(/NOTIFIER_PORT.*DATABASE_URL: must be a postgres or postgresql URL/);
  });

  it('when NODE_ENV=production, then WEBHOOK_ALLOW_INSECURE=true is a start-up error naming it; outside production it is accepted', () => {
    const urls = {
      DATABASE_URL: 'postgres://localhost/db',
      AMQP_URL: 'amqp://localhost',
      SMTP_URL: 'smtp://localhost:2525',
      ACCOUNT_PAGE_URL: 'https://account.example.com/account/',
    };
    expect(() => loadConfig({ ...urls, NODE_ENV: 'production', WEBHOOK_ALLOW_INSECURE: 'true' })).toThrow(
      new ConfigError('invalid configuration: WEBHOOK_ALLOW_INSECURE: exists for tests only; refused when NODE_ENV=production'),
    );
    expect(loadConfig({ ...urls, NODE_ENV: 'production' }).webhookAllowInsecure).toBe(false);
    expect(loadConfig({ ...urls, WEBHOOK_ALLOW_INSECURE: 'true' }).webhookAllowInsecure).toBe(true);
  });

  it('when only the required URLs are given, then the contract defaults apply', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://localhost/db', AMQP_URL: 'amqp://localhost', SMTP_URL: 'smtp://localhost:2525' });
    expect(config).toMatchObject({
      port: 8084,
      host: '127.0.0.1',
      brandName: 'Account access',
      mailFrom: 'Account access <alerts@localhost>',
      topUpUrl: undefined,
      webhookAllowInsecure: false,
      settingsUrl: 'http://127.0.0.1:8082/account/#alerts',
      exchange: 'balance.events',
      queue: 'notifier.balance-changed',
      deadLetterQueue: 'notifier.balance-changed.dead',
      prefetch: 10,
      deliveryLimit: 50,
      databasePoolMax: 10,
      databaseDirectUrl: undefined,
      processedEventRetentionHours: 168,
      mailRetentionHours: 168,
      sweepMs: 60_000,
    });
  });

  it('when AMQP_URL lists the nodes of a cluster and the delivery limit is set, then both are read', () => {
    const required = { DATABASE_URL: 'postgres://localhost/db', SMTP_URL: 'smtp://localhost:2525' };
    expect(loadConfig({ ...required, AMQP_URL: 'amqp://a:5672,amqp://b:5672', NOTIFIER_DELIVERY_LIMIT: '5' })).toMatchObject({
      amqpUrl: 'amqp://a:5672,amqp://b:5672',
      deliveryLimit: 5,
    });
    expect(() => loadConfig({ ...required, AMQP_URL: 'amqp://a:5672', NOTIFIER_DELIVERY_LIMIT: '0' })).toThrow(/NOTIFIER_DELIVERY_LIMIT/);
  });

  it('when BRAND_NAME is set, then the e-mails carry it and so does the default sender; MAIL_FROM wins', () => {
    const required = { DATABASE_URL: 'postgres://localhost/db', AMQP_URL: 'amqp://localhost', SMTP_URL: 'smtp://localhost:2525' };
    expect(loadConfig({ ...required, BRAND_NAME: 'Acme <Data>' })).toMatchObject({
      brandName: 'Acme <Data>',
      mailFrom: 'Acme Data <alerts@localhost>',
    });
    expect(loadConfig({ ...required, BRAND_NAME: 'Acme', MAIL_FROM: 'Billing <billing@acme.test>' }).mailFrom).toBe(
      'Billing <billing@acme.test>',
    );
  });

  it('when USER_URL is set and SETTINGS_URL is not, then the settings URL is derived from it', () => {
    const config = loadConfig({ USER_URL: 'https://api.example.com/' }, { requireInfrastructure: false });
    expect(config.settingsUrl).toBe('https://api.example.com/account/#alerts');
  });

  it('when ACCOUNT_PAGE_URL is set, then the e-mails link to it and to its alert settings', () => {
    const config = loadConfig({ ACCOUNT_PAGE_URL: 'https://app.example.com/account/' }, { requireInfrastructure: false });
    expect(config).toMatchObject({
      accountUrl: 'https://app.example.com/account/',
      settingsUrl: 'https://app.example.com/account/#alerts',
    });
  });

  it('when only SETTINGS_URL is set (as before ACCOUNT_PAGE_URL), then the account page is that page without its fragment', () => {
    const config = loadConfig({ SETTINGS_URL: 'https://app.example.com/account/#alerts' }, { requireInfrastructure: false });
    expect(config).toMatchObject({
      accountUrl: 'https://app.example.com/account/',
      settingsUrl: 'https://app.example.com/account/#alerts',
    });
  });

  it('when NODE_ENV=production and ACCOUNT_PAGE_URL is unset, then a start-up error names it', () => {
    const required = { DATABASE_URL: 'postgres://localhost/db', AMQP_URL: 'amqp://localhost', SMTP_URL: 'smtp://localhost:2525' };
    expect(() => loadConfig({ ...required, NODE_ENV: 'production', USER_URL: 'http://user.internal:8082' })).toThrow(
      /ACCOUNT_PAGE_URL: required when NODE_ENV=production/,
    );
    expect(loadConfig({ ...required, NODE_ENV: 'production', ACCOUNT_PAGE_URL: 'https://app.example.com/account/' }).accountUrl).toBe(
      'https://app.example.com/account/',
    );
  });

  it('when not embedded and without a given pool or DATABASE_URL, then openInfrastructure refuses', async () => {
    const config = loadConfig({ OUTBOX_DIR: '/tmp/outbox' }, { requireInfrastructure: false });
    await expect(openInfrastructure(config, { name: 'notifier', logger: silentLogger(), needs: NOTIFIER_NEEDS })).rejects.toThrow(
      /DATABASE_URL: Required; AMQP_URL: Required/,
    );
  });

  it('when the retention variables are set, then they apply; a processed-event retention under 24 h is refused', () => {
    const urls = { DATABASE_URL: 'postgres://localhost/db', AMQP_URL: 'amqp://localhost', SMTP_URL: 'smtp://localhost:2525' };
    expect(
      loadConfig({ ...urls, NOTIFIER_PROCESSED_EVENT_RETENTION_HOURS: '48', NOTIFIER_MAIL_RETENTION_HOURS: '0', NOTIFIER_SWEEP_MS: '500' }),
    ).toMatchObject({ processedEventRetentionHours: 48, mailRetentionHours: 0, sweepMs: 500 });
    expect(() => loadConfig({ ...urls, NOTIFIER_PROCESSED_EVENT_RETENTION_HOURS: '23' })).toThrow(
      /NOTIFIER_PROCESSED_EVENT_RETENTION_HOURS/,
    );
  });
});
