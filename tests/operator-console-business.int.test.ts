/**
 * Running the business from the operator console (issue 43) in Chromium against `pnpm start`: an
 * operator creates an account (its key shown once, copied), finds accounts with filters, sorting,
 * totals and the bulk view, tops up with the product picker, sees the customer's alert address,
 * webhook and failed deliveries, adjusts to 0, disables and rotates and reads the refusal reasons
 * the account meets, exports the ledger and the filtered audit log as CSV; a `support` token sees
 * all of it and no write control. Screenshots: artifacts/screenshots/operator-business-*.png.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { launchBrowser, screenshot, seriousViolations, type Browser } from './browser/browser';
import { sidewaysOverflow, startPagePlatform, type PagePlatform } from './browser/page-platform';
import { json, adminCaller } from './browser/http';

const OPERATOR = 'ops-alice';
const OPERATOR_TOKEN = `operator-business-token-${randomUUID()}`;
const SUPPORT_TOKEN = `operator-business-support-${randomUUID()}`;
const NEW_CUSTOMER = 'erin@example.test';

let platform: PagePlatform;
let browser: Browser;
let page: Page;
let erin: { id: number; apiKey: string };

const admin = adminCaller(() => platform.urls.user, OPERATOR_TOKEN);

async function signIn(target: Page, token: string): Promise<void> {
  await target.goto(`${platform.urls.user}/admin/`);
  await target.waitForSelector('body[data-state="signed-out"]');
  await target.fill('#admin-token', token);
  await target.click('#sign-in-form button[type="submit"]');
  await target.waitForSelector('body[data-state="signed-in"]');
}

async function confirm(opener: string, says: RegExp): Promise<void> {
  await page.click(opener);
  await page.waitForSelector('#confirm-dialog[open]');
  expect(await page.textContent('#confirm-text')).toMatch(says);
  await page.click('#confirm-ok');
  await page.waitForSelector('#confirm-dialog', { state: 'hidden' });
}

async function downloaded(button: string): Promise<string> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return readFileSync(await file.path(), 'utf8');
}

const column = (index: number) => page.locator(`#search-results tbody tr td:nth-child(${index})`).allTextContents();

beforeAll(async () => {
  platform = await startPagePlatform({
    name: 'operator_business',
    env: {
      ADMIN_TOKENS: `${OPERATOR}=${OPERATOR_TOKEN},helpdesk:support=${SUPPORT_TOKEN}`,
      SERVICE_JWT_SECRET: `operator-business-jwt-secret-${randomUUID()}`,
      WEBHOOK_ALLOW_INSECURE: 'true',
      BRAND_NAME: 'Acme Data',
    },
  });
  const made: Record<string, number> = {};
  for (const [email, credits] of [
    ['gina@example.test', { 7: 5 }],
    ['hank@example.test', { 1: 900, 14: 40 }],
    ['ivy@example.test', { 8: 3_000 }],
  ] as const) {
    const created = await admin('POST', '/admin/v1/accounts', { email, credits });
    expect(created.status).toBe(201);
    made[email] = (created.body as { id: number }).id;
  }
  expect(
    (await admin('POST', `/admin/v1/accounts/${made['gina@example.test']}/credits`, { productId: 7, amount: -5, reason: 'x' })).status,
  ).toBe(200);
  expect((await admin('PATCH', `/admin/v1/accounts/${made['hank@example.test']}`, { disabled: true })).status).toBe(200);
  browser = await launchBrowser();
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write']);
  page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
}, 60_000);

describe('running the business from the operator console', () => {
  it('when the operator creates an account with a first top-up, then its key shows once, copies, and works', async () => {
    await signIn(page, OPERATOR_TOKEN);
    expect(await page.textContent('#signed-in-as')).toBe(`Signed in as ${OPERATOR}`);
    expect(await page.textContent('#brand')).toBe('Acme Data · Operator console');
    await page.fill('#create-email', NEW_CUSTOMER);
    await page.selectOption('#create-product', { label: 'WHOIS API (1)' });
    await page.fill('#create-credits', '100');
    await page.click('#create-form button[type="submit"]');
    await page.waitForSelector('#created-key:not([hidden])');
    await page.click('#created-key-copy');
    await page.waitForSelector('#created-key-status:has-text("Copied")');
    const apiKey = await page.inputValue('#created-key-value');
    const copied = await page.evaluate(() =>
      (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
    );
    expect(copied).toBe(apiKey);
    const balance = await json(`${platform.urls.user}/user-service/account-balance?apiKey=${apiKey}`);
    expect(balance.status).toBe(200);
    await page.waitForSelector(`#account-title:has-text("${NEW_CUSTOMER}")`);
    erin = { id: Number(/Account (\d+)/.exec((await page.textContent('#account-facts')) ?? '')?.[1]), apiKey };
    await page.locator('#create').scrollIntoViewIfNeeded();
    await screenshot(page, 'operator-business-01-created', { fullPage: false });
  });

  it('when the operator filters, sorts and lists every account, then the rows, marks and totals follow', async () => {
    await page.selectOption('#search-status', 'disabled');
    await page.click('#search-form button[type="submit"]');
    await page.waitForSelector('#search-results tbody tr');
    expect(await column(2)).toEqual(['hank@example.test']);
    await page.selectOption('#search-status', '');
    await page.selectOption('#search-balance', 'empty');
    await page.click('#search-form button[type="submit"]');
    await page.waitForSelector('#search-results tbody tr:has-text("gina")');
    expect(await column(2)).toEqual(['gina@example.test']);
    expect(await column(5)).toEqual(['Email Verification API 0Empty']);
    await page.selectOption('#search-balance', '');
    await page.click('#search-all');
    await page.waitForSelector('#search-results tbody tr:nth-child(4)');
    expect(await page.textContent('#search-totals')).toBe('4 accounts shown · 4,040 credits in all · 1 disabled · 1 with an empty pool');
    await page.click('#search-results button[data-sort="credits"]');
    expect(await column(6)).toEqual(['3,000', '940', '100', '0']);
    await page.click('#search-results button[data-sort="email"]');
    expect(await column(2)).toEqual(['erin@example.test', 'gina@example.test', 'hank@example.test', 'ivy@example.test']);
    await page.locator('#search').scrollIntoViewIfNeeded();
    await screenshot(page, 'operator-business-02-list', { fullPage: false });
  });

  it('when the account is opened, then its alert address, webhook and failed deliveries show; a top-up uses the product picker', async () => {
    const settings = { Authorization: `Bearer ${erin.apiKey}`, 'Content-Type': 'application/json' };
    const hook = await json(`${platform.urls.user}/user-service/notification-settings`, {
      method: 'POST',
      headers: settings,
      body: JSON.stringify({ email: 'alerts@erin.example.test', webhook: { url: 'http://127.0.0.1:9/hook', enabled: true } }),
    });
    expect(hook.status).toBe(200);
    await json(`${platform.urls.user}/user-service/notification-settings/webhook-test`, { method: 'POST', headers: settings });
    await page.click(`#search-results button:has-text("${NEW_CUSTOMER}")`);
    await page.waitForSelector('#deliveries tbody tr');
    expect(await page.locator('#account-settings dd').allTextContents()).toEqual([
      'alerts@erin.example.test',
      'on, below 10 credits',
      'on',
      'http://127.0.0.1:9/hook · enabled',
    ]);
    expect(await page.textContent('#deliveries-summary')).toBe('1 of the last 1 attempts failed.');
    expect(await page.locator('#deliveries tbody tr td:nth-child(3)').first().textContent()).toMatch(/^Not delivered: /);
    await page.selectOption('#credits-product', { label: 'Bulk WHOIS API (24)' });
    await page.fill('#credits-amount', '-100');
    await page.fill('#credits-reason', 'Chargeback');
    await confirm('#credits-form button[type="submit"]', /^Take 100 credits from Bulk WHOIS API's pool of erin@example\.test/);
    await page.waitForSelector('#balances tbody tr:has-text("Empty")');
    expect(await page.locator('#account-refusal-list li').allTextContents()).toEqual([
      'Every pool is at 0: new tokens are refused (no_credits) until credits are added.',
    ]);
    await page.locator('#account').scrollIntoViewIfNeeded();
    await screenshot(page, 'operator-business-03-account');
  });

  it('when the operator disables and rotates, then the reasons the customer meets are listed', async () => {
    await confirm('#toggle-disabled', /^Disable erin@example\.test\?/);
    await confirm('#rotate-key', /^Rotate the API key of erin@example\.test\?/);
    await page.waitForSelector('#new-key:not([hidden])');
    await page.waitForSelector('#account-refusal-list li:has-text("Key replaced")');
    expect(await page.locator('#account-refusal-list li').allTextContents()).toEqual([
      'Disabled: its key and every token are refused (account_disabled) until it is enabled.',
      'Every pool is at 0: new tokens are refused (no_credits) until credits are added.',
      expect.stringMatching(/^Key replaced at \d{4}-\d\d-\d\d \d\d:\d\d UTC by ops-alice: the earlier key is refused \(key_replaced\)\.$/),
    ]);
    const old = await fetch(`${platform.urls.user}/user-service/account-balance?apiKey=${erin.apiKey}`);
    expect([old.status, old.headers.get('x-refusal-reason')]).toEqual([401, 'key_replaced']);
    await page.locator('#account-refusals').scrollIntoViewIfNeeded();
    await screenshot(page, 'operator-business-04-reasons', { fullPage: false });
  });

  it('when the ledger and the filtered audit log are exported, then the CSV files hold the same rows', async () => {
    const ledger = await downloaded('#ledger-csv');
    const lines = ledger.trim().split(/\r?\n/);
    expect(lines[0]).toBe('id,productId,delta,credits,cause,actor,at');
    expect(lines.slice(1).map((line) => line.split(',').slice(1, 6).join(','))).toEqual([
      `1,-100,0,adjustment,${OPERATOR}`,
      `1,100,100,top-up,${OPERATOR}`,
    ]);
    await page.selectOption('#audit-action', 'credits.adjust');
    await page.click('#audit-filters button[type="submit"]');
    // The filtered list replaces the whole one (an Adjustment row is in both): wait for the others to go.
    await page.locator('#audit-log tbody tr', { hasNotText: 'Adjustment' }).first().waitFor({ state: 'detached' });
    expect(await page.locator('#audit-log tbody tr').allTextContents()).toEqual([
      expect.stringMatching(
        new RegExp(`UTC${OPERATOR}Adjustment${erin.id}Took 100 credits from Bulk WHOIS API's pool\\. Reason: “Chargeback”\\.$`),
      ),
    ]);
    const audit = (await downloaded('#audit-csv')).trim().split(/\r?\n/);
    expect(audit[0]).toBe('at,actor,action,accountId,details');
    expect(audit.slice(1)).toEqual([expect.stringContaining(`,${OPERATOR},credits.adjust,${erin.id},`)]);
    await page.locator('#audit').scrollIntoViewIfNeeded();
    await screenshot(page, 'operator-business-05-audit', { fullPage: false });
  });

  it('when a support token signs in, then it reads everything and is offered no change', async () => {
    const support = await browser.context.newPage();
    await support.setViewportSize({ width: 1280, height: 900 });
    await signIn(support, SUPPORT_TOKEN);
    expect(await support.textContent('#signed-in-as')).toBe('Signed in as helpdesk · read only (support)');
    expect(await support.isVisible('#create')).toBe(false);
    await support.fill('#search-query', NEW_CUSTOMER);
    await support.click('#search-form button[type="submit"]');
    await support.click(`#search-results button:has-text("${NEW_CUSTOMER}")`);
    await support.waitForSelector('#account:not([hidden]) #balances tbody tr');
    expect(await support.isVisible('#credits-form')).toBe(false);
    expect(await support.isVisible('#toggle-disabled')).toBe(false);
    expect(await support.locator('[data-write]:visible').count()).toBe(0);
    expect(await support.locator('#ledger tbody tr').count()).toBe(2);
    await screenshot(support, 'operator-business-06-support');
    await support.setViewportSize({ width: 390, height: 844 });
    await support.locator('#account').scrollIntoViewIfNeeded();
    await screenshot(support, 'operator-business-07-support-phone', { fullPage: false });
    expect(await seriousViolations(support)).toEqual([]);
    await support.close();
  });

  it('when shown at 390 px, then nothing overflows sideways and axe finds nothing serious', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#usage-chart').scrollIntoViewIfNeeded();
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'operator-business-08-phone', { fullPage: false });
    // Each part of the journey at phone width: tables stack (one block per row), so no column is cut off.
    for (const [selector, name] of [
      ['#search', '09-phone-list'],
      ['#create', '10-phone-create'],
      ['#account-refusals', '11-phone-reasons'],
      ['#credits-form', '12-phone-top-up'],
      ['#ledger', '13-phone-ledger'],
      ['#deliveries', '14-phone-deliveries'],
    ] as const) {
      await page.locator(selector).scrollIntoViewIfNeeded();
      await screenshot(page, `operator-business-${name}`, { fullPage: false });
    }
    const cutOff = await page.evaluate(() => {
      const doc = (
        globalThis as unknown as {
          document: { querySelectorAll(selector: string): ArrayLike<{ scrollWidth: number; clientWidth: number }> };
        }
      ).document;
      return Array.from(doc.querySelectorAll('.table-scroll')).filter((holder) => holder.scrollWidth > holder.clientWidth).length;
    });
    expect(cutOff).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
