/**
 * The account page's cards (issue 43) in Chromium against the platform `pnpm start` runs: a
 * skeleton while a card loads and a Retry button when it fails, the credit history (top-ups and
 * adjustments, CONTRACT §4.8), changing where alerts go, copying the webhook's secret, a
 * confirmation before the webhook is removed, today's date on the chart, the legend at 390 px,
 * and the refusal reasons' sentences (a disabled account, a replaced key). Screenshots go to
 * artifacts/screenshots/account-cards-*.png.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { signServiceJwt } from '@platform/credentials';
import { launchBrowser, screenshot, seriousViolations, type Browser } from './browser/browser';
import { startPagePlatform, type PagePlatform } from './browser/page-platform';
import { json, adminCaller } from './browser/http';

const ADMIN_TOKEN = `cards-admin-token-${randomUUID()}`;
const SERVICE_JWT_SECRET = `cards-service-jwt-secret-${randomUUID()}`;
const HOOK = 'http://127.0.0.1:9/balance-hook';

let platform: PagePlatform;
let browser: Browser;
let page: Page;
let account: { id: number; apiKey: string };

const admin = adminCaller(() => platform.urls.user ?? '', ADMIN_TOKEN);

const settings = async () =>
  (await json(`${platform.urls.user}/user-service/notification-settings?apiKey=${account.apiKey}`)).body as {
    email: string;
    webhook: unknown;
  };

async function use(productId: number, units: number): Promise<void> {
  const jwt = signServiceJwt({ issuer: 'cards-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 });
  const res = await json(`${platform.urls.user}/internal/v1/usage`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${jwt}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ credential: account.apiKey, productId, units, requestId: randomUUID() }),
  });
  expect(res.status).toBe(200);
}

async function signIn(apiKey: string): Promise<void> {
  await page.goto(`${platform.urls.user}/account/`);
  await page.waitForSelector('body[data-state="signed-out"]');
  await page.fill('#api-key', apiKey);
  await page.click('#sign-in-form button[type="submit"]');
}

beforeAll(async () => {
  platform = await startPagePlatform({
    name: 'account_cards',
    how: 'in-process',
    env: { ADMIN_TOKEN, SERVICE_JWT_SECRET, WEBHOOK_ALLOW_INSECURE: 'true' },
  });
  const created = await admin('POST', '/admin/v1/accounts', {
    email: 'bea@example.test',
    credits: { 1: 5_000, 14: 900, 7: 300, 8: 300, 20: 300, 21: 300 },
  });
  expect(created.status).toBe(201);
  account = created.body as { id: number; apiKey: string };
  expect((await admin('POST', `/admin/v1/accounts/${account.id}/credits`, { productId: 24, amount: 250, reason: 'ticket 9' })).status).toBe(
    200,
  );
  expect((await admin('POST', `/admin/v1/accounts/${account.id}/credits`, { productId: 103, amount: -20, reason: 'refund' })).status).toBe(
    200,
  );
  for (const [productId, units] of [
    [1, 40],
    [24, 12],
    [103, 30],
    [7, 9],
    [8, 14],
    [20, 6],
    [21, 11],
  ] as const)
    await use(productId, units);
  browser = await launchBrowser();
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write']);
  page = await browser.context.newPage();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
}, 60_000);

describe('the account page cards in Chromium', () => {
  it('when a card is loading, then it shows a skeleton; when it fails, a sentence and Retry, which loads it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    await page.route('**/user-service/credit-history*', async (route) => {
      calls += 1;
      await held;
      if (calls === 1) await route.fulfill({ status: 503, contentType: 'application/json', body: '{"code":503,"messages":"x"}' });
      else await route.continue();
    });
    await signIn(account.apiKey);
    await page.waitForSelector('#history[aria-busy="true"] .skeleton span', { state: 'visible' });
    await page.waitForSelector('#balance[aria-busy="false"] .pool');
    await screenshot(page, 'account-cards-01-loading', { fullPage: false });
    release();
    await page.waitForSelector('#history .card-error button:has-text("Retry")');
    expect(await page.textContent('#history .card-error p')).toMatch(/^This could not be loaded\. The service is busy/);
    expect(await page.isVisible('#balance .pool')).toBe(true);
    await page.locator('#history').scrollIntoViewIfNeeded();
    await screenshot(page, 'account-cards-02-retry', { fullPage: false });
    await page.click('#history .card-error button');
    await page.waitForSelector('#history-table tbody tr');
    expect(await page.locator('#history .card-error').count()).toBe(0);
    await page.unroute('**/user-service/credit-history*');
  });

  it('when the credit history is read, then top-ups and adjustments, newest first, with product names', async () => {
    const rows = await page.locator('#history-table tbody tr').allTextContents();
    expect(rows.slice(0, 2)).toEqual([
      expect.stringMatching(/AdjustmentDomain Research Suite−20880$/),
      expect.stringMatching(/Top-upWHOIS API\+2505,250$/),
    ]);
    expect(rows.length).toBe(8);
    await page.locator('#history').scrollIntoViewIfNeeded();
    await screenshot(page, 'account-cards-03-history', { fullPage: false });
  });

  it('when the chart is drawn, then its time axis labels today', async () => {
    const today = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(new Date());
    expect((await page.getAttribute('#usage-chart', 'data-x-ticks'))?.split('|').at(-1)).toBe(`${today}\nToday`);
    await page.locator('#usage').scrollIntoViewIfNeeded();
    await screenshot(page, 'account-cards-04-chart-today', { fullPage: false });
  });

  it('when the customer changes where alerts go, then the settings hold the new address; a bad one gets a sentence', async () => {
    expect(await page.inputValue('#alert-email')).toBe('bea@example.test');
    await page.fill('#alert-email', 'not an address');
    await page.click('#alerts-form button[type="submit"]');
    await page.waitForSelector('#alert-email-error:not([hidden])');
    expect(await page.textContent('#alert-email-error')).toBe('Enter one e-mail address, such as alerts@example.com.');
    await page.fill('#alert-email', 'billing@example.test');
    await page.click('#alerts-form button[type="submit"]');
    await page.waitForSelector('#alert-email-now:has-text("Alerts go to billing@example.test.")');
    expect((await settings()).email).toBe('billing@example.test');
    await page.locator('#alerts').scrollIntoViewIfNeeded();
    await screenshot(page, 'account-cards-05-alert-address', { fullPage: false });
  });

  it('when the webhook secret is copied and the webhook removed, then the clipboard holds it and removal asks first', async () => {
    await page.fill('#webhook-url', HOOK);
    await page.click('#webhook-form button[type="submit"]');
    await page.waitForSelector('#webhook-secret:not([hidden])');
    await page.click('#copy-secret');
    await page.waitForSelector('#secret-copy-status:has-text("Copied")');
    const copied = await page.evaluate(() =>
      (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
    );
    expect(copied).toBe(await page.inputValue('#webhook-secret-value'));
    expect(copied).toMatch(/^whsec_/);
    await page.click('#webhook-remove');
    await page.waitForSelector('#webhook-remove-dialog[open]');
    await screenshot(page, 'account-cards-06-remove-confirm', { fullPage: false });
    await page.click('#webhook-remove-cancel');
    await page.waitForSelector('#webhook-remove-dialog', { state: 'hidden' });
    expect((await settings()).webhook).toEqual({ url: HOOK, enabled: true });
    await page.click('#webhook-remove');
    await page.click('#webhook-remove-confirm');
    await page.waitForSelector('#webhook-saved:has-text("Webhook removed.")');
    expect((await settings()).webhook).toBeNull();
  });

  it('when shown at 390 px, then the legend is not taller than the chart, and axe finds nothing serious', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#usage').scrollIntoViewIfNeeded();
    const sizes = await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { querySelector(selector: string): { clientHeight: number } } }).document;
      return {
        legend: doc.querySelector('#usage-chart .u-legend').clientHeight,
        chart: doc.querySelector('#usage-chart .u-over').clientHeight,
      };
    });
    expect(sizes.legend).toBeGreaterThan(0);
    expect(sizes.legend).toBeLessThanOrEqual(sizes.chart);
    await screenshot(page, 'account-cards-07-phone-chart', { fullPage: false });
    expect(await seriousViolations(page)).toEqual([]);
    for (const [selector, name] of [
      ['#history', '07b-phone-history'],
      ['#alerts', '07c-phone-alert-address'],
    ] as const) {
      await page.locator(selector).scrollIntoViewIfNeeded();
      await screenshot(page, `account-cards-${name}`, { fullPage: false });
    }
    await page.fill('#webhook-url', HOOK);
    await page.click('#webhook-form button[type="submit"]');
    await page.waitForSelector('#webhook-secret:not([hidden])');
    await page.click('#webhook-remove');
    await page.waitForSelector('#webhook-remove-dialog[open]');
    await screenshot(page, 'account-cards-07d-phone-remove-confirm', { fullPage: false });
    await page.click('#webhook-remove-cancel');
    await page.waitForSelector('#webhook-remove-dialog', { state: 'hidden' });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('when the operator disables the account while the page is open, then its next action says so, and so does signing in', async () => {
    await page.waitForSelector('body[data-state="signed-in"]');
    expect((await admin('PATCH', `/admin/v1/accounts/${account.id}`, { disabled: true })).status).toBe(200);
    // The open page's next action: its session is refused as account_disabled, not as a session that ended.
    await page.click('#alerts-form button[type="submit"]');
    await page.waitForSelector('body[data-state="signed-out"]');
    expect(await page.textContent('#notice')).toBe('This account is disabled: contact support.');
    await screenshot(page, 'account-cards-08-disabled-open-page', { fullPage: false });
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'account-cards-08b-disabled-open-page-phone', { fullPage: false });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.fill('#api-key', account.apiKey);
    await page.click('#sign-in-form button[type="submit"]');
    await page.waitForSelector('#api-key-error:not([hidden])');
    expect(await page.textContent('#api-key-error')).toBe('This account is disabled: contact support.');
    await screenshot(page, 'account-cards-08-disabled');
  });

  it('when a replaced key signs in, then the page says it was replaced, and when', async () => {
    expect((await admin('PATCH', `/admin/v1/accounts/${account.id}`, { disabled: false })).status).toBe(200);
    const before = Date.now();
    expect((await admin('POST', `/admin/v1/accounts/${account.id}/api-key`)).status).toBe(200);
    await signIn(account.apiKey);
    await page.waitForSelector('#api-key-error:not([hidden])');
    const said = (await page.textContent('#api-key-error')) ?? '';
    const [, day, time] = /^This key was replaced on (\d{1,2} \w+ \d{4}), (\d{2}:\d{2}) UTC: sign in with the new key\./.exec(said) ?? [];
    // The rotation above, to the minute (the sentence is in UTC; so is the browser).
    expect(Math.abs(Date.parse(`${day} ${time} UTC`) - before)).toBeLessThan(2 * 60_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'account-cards-09-replaced-phone');
  });
});
