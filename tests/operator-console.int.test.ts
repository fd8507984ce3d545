/**
 * The operator console (issue 29) in a real browser (Debian's Chromium through playwright-core)
 * against `pnpm start`: an operator signs in with a named admin token, finds an account by
 * e-mail, tops it up and disables it (each after a confirmation that says what it will do); the
 * customer's key and token are then refused; the audit log shows all of it under the operator's
 * name. Every step leaves a screenshot in artifacts/screenshots/operator-*.png; axe-core finds
 * no serious violation at laptop and phone width; the strict Content-Security-Policy holds.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Page } from 'playwright-core';
import { createPool } from '@platform/db';
import { silentLogger } from '@platform/testing';
import { launchBrowser, screenshot, seriousViolations, type Browser } from './browser/browser';
import { openWatchedPage, sidewaysOverflow, startPagePlatform, type PagePlatform } from './browser/page-platform';
import { json } from './browser/http';

const OPERATOR = 'ops-alice';
const OPERATOR_TOKEN = `operator-console-token-${randomUUID()}`;
/** ADMIN_TOKEN (name `admin`): the auth service's introspection takes it. */
const ADMIN_TOKEN = `operator-console-admin-${randomUUID()}`;
const CUSTOMER = 'carol@example.test';
const DAY_MS = 86_400_000;
type InTab = { sessionStorage: { getItem(key: string): string | null }; localStorage: { length: number } };

let platform: PagePlatform;
let browser: Browser;
let pool: pg.Pool;
let page: Page;
let customer: { id: number; apiKey: string; token: string };
const cspViolations: string[] = [];

const admin = (path: string, body: unknown) =>
  json(`${platform.urls.user}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${OPERATOR_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Three weeks of earlier usage, written into the ledger as the usage API writes it (its API cannot backdate). */
async function earlierUsage(accountId: number): Promise<void> {
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  for (let daysAgo = 21; daysAgo >= 1; daysAgo -= 1) {
    await pool.query(
      `INSERT INTO credit_ledger (account_id, pool_id, product_id, delta, credits_after, cause, request_id, created_at)
       VALUES ($1, 1, 1, $2, 1000, 'usage', $3, $4)`,
      [accountId, -(10 + ((daysAgo * 37) % 50)), randomUUID(), new Date(today - daysAgo * DAY_MS + 12 * 3_600_000)],
    );
  }
}

/** What the customer's credentials get: the balance by key, a new token, introspection of the old one. */
async function customerAccess(): Promise<{ balance: number; mint: number; introspection: unknown }> {
  const balance = await json(`${platform.urls.user}/user-service/account-balance?apiKey=${customer.apiKey}`);
  const mint = await json(`${platform.urls.auth}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${Buffer.from(customer.apiKey).toString('base64')}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ grantType: 'access_token' }),
  });
  const introspection = await json(`${platform.urls.auth}/oauth/introspect`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `token=${customer.token}`,
  });
  return { balance: balance.status, mint: mint.status, introspection: (introspection.body as { active?: boolean }).active };
}

/** Clicks the button that opens the confirmation, checks what it says, screenshots it and confirms. */
async function confirmStep(opener: string, says: RegExp, name: string): Promise<void> {
  await page.click(opener);
  await page.waitForSelector('#confirm-dialog[open]');
  expect(await page.textContent('#confirm-text')).toMatch(says);
  await screenshot(page, name, { fullPage: false });
  await page.click('#confirm-ok');
  await page.waitForSelector('#confirm-dialog', { state: 'hidden' });
}

beforeAll(async () => {
  platform = await startPagePlatform({
    name: 'operator_console',
    env: {
      ADMIN_TOKEN,
      ADMIN_TOKENS: `${OPERATOR}=${OPERATOR_TOKEN}`,
      SERVICE_JWT_SECRET: `operator-console-jwt-secret-${randomUUID()}`,
    },
  });
  pool = createPool({ connectionString: platform.database.url, logger: silentLogger(), max: 2 });
  for (const email of ['dave@example.test', 'caroline@example.test'])
    expect((await admin('/admin/v1/accounts', { email, credits: { 7: 10 } })).status).toBe(201);
  const created = await admin('/admin/v1/accounts', { email: CUSTOMER, credits: { 1: 2_000, 14: 300 } });
  expect(created.status).toBe(201);
  const { id, apiKey } = created.body as { id: number; apiKey: string };
  await earlierUsage(id);
  const minted = await json(`${platform.urls.auth}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${Buffer.from(apiKey).toString('base64')}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ grantType: 'access_token' }),
  });
  customer = { id, apiKey, token: (minted.body as { accessToken: string }).accessToken };
  browser = await launchBrowser();
  page = await openWatchedPage(browser, cspViolations);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await pool?.end();
  await platform?.stop();
}, 60_000);

describe('the operator console in Chromium against pnpm start', () => {
  it('when opened, then it asks for an admin token, under a strict Content-Security-Policy with no inline script', async () => {
    const opened = await page.goto(`${platform.urls.user}/admin/`);
    await page.waitForSelector('body[data-state="signed-out"]');
    const csp = (await opened?.allHeaders())?.['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self';");
    const html = (await opened?.text()) ?? '';
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle="|\son[a-z]+="/);
    await page.fill('#admin-token', 'not-the-token-not-the-token-not-the-token');
    await page.click('#sign-in-form button[type="submit"]');
    await page.waitForSelector('#admin-token-error:not([hidden])');
    expect(await page.textContent('#admin-token-error')).toBe(
      'Wrong admin token: it is none of the service’s ADMIN_TOKEN or ADMIN_TOKENS.',
    );
    await screenshot(page, 'operator-01-sign-in');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('when the operator signs in, then the token is in sessionStorage only, and the console opens on the audit log', async () => {
    await page.fill('#admin-token', OPERATOR_TOKEN);
    await page.click('#sign-in-form button[type="submit"]');
    await page.waitForSelector('body[data-state="signed-in"]');
    const storage = await page.evaluate(() => {
      const tab = globalThis as unknown as InTab;
      return { session: tab.sessionStorage.getItem('operator-console.adminToken'), local: tab.localStorage.length };
    });
    expect(storage).toEqual({ session: OPERATOR_TOKEN, local: 0 });
    expect(await page.inputValue('#admin-token')).toBe('');
  });

  it('when the operator searches by e-mail, then the one account; opening it shows balances, the 30-day usage and the ledger', async () => {
    await page.fill('#search-query', CUSTOMER.toUpperCase());
    await page.click('#search-form button[type="submit"]');
    await page.waitForSelector('#search-results tbody tr');
    expect(await page.locator('#search-results tbody tr').allTextContents()).toEqual([expect.stringContaining(CUSTOMER)]);
    await screenshot(page, 'operator-02-search');
    await page.click(`#search-results button:has-text("${CUSTOMER}")`);
    await page.waitForSelector('#account:not([hidden]) #balances tbody tr');
    expect(await page.textContent('#account-title')).toBe(`${CUSTOMER} Active`);
    expect(await page.locator('#balances tbody tr').first().textContent()).toBe('WHOIS API poolWHOIS API, Bulk WHOIS API2,000OK');
    expect(await page.locator('#usage-chart rect').count()).toBe(21);
    expect(await page.textContent('#usage-summary')).toMatch(/credits used in the last 30 days/);
    await screenshot(page, 'operator-03-account');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('when the operator tops the account up with a reason, then after a confirmation the balance and the ledger show it', async () => {
    await page.selectOption('#credits-product', { label: 'Bulk WHOIS API (24)' });
    await page.fill('#credits-amount', '500');
    await page.fill('#credits-reason', 'Goodwill after ticket 4711');
    await confirmStep(
      '#credits-form button[type="submit"]',
      /^Add 500 credits to Bulk WHOIS API's pool of carol@example\.test\. Reason: “Goodwill after ticket 4711”\.$/,
      'operator-04-confirm-top-up',
    );
    await page.waitForSelector('#notice:has-text("now has 2500 credits")');
    expect(await page.locator('#balances tbody tr').first().textContent()).toBe('WHOIS API poolWHOIS API, Bulk WHOIS API2,500OK');
    expect(await page.locator('#ledger tbody tr').first().textContent()).toContain(`Top-upWHOIS API pool+5002,500${OPERATOR}`);
    await screenshot(page, 'operator-05-topped-up');
  });

  it("when the operator disables the account, then after a confirmation the customer's key and token are refused at once", async () => {
    expect(await customerAccess()).toEqual({ balance: 200, mint: 200, introspection: true });
    await confirmStep(
      '#toggle-disabled',
      /^Disable carol@example\.test\? Its API key and every access token are refused at once/,
      'operator-06-confirm-disable',
    );
    await page.waitForSelector('#account-title:has-text("Disabled")');
    expect(await customerAccess()).toEqual({ balance: 401, mint: 401, introspection: false });
    await screenshot(page, 'operator-07-disabled');
  });

  it("when the audit log is read, then the creation, the top-up and the disabling, each under the operator's name", async () => {
    const rows = await page.locator('#audit-log tbody tr').allTextContents();
    expect(rows).toEqual([
      expect.stringMatching(new RegExp(`^.* UTC${OPERATOR}Account changed${customer.id}Disabled the account\\.$`)),
      expect.stringMatching(
        new RegExp(
          `^.* UTC${OPERATOR}Top-up${customer.id}Added 500 credits to Bulk WHOIS API's pool\\. Reason: “Goodwill after ticket 4711”\\.$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^.* UTC${OPERATOR}Account created${customer.id}Created the account for carol@example\\.test with WHOIS API 2,000, Domain Research Suite 300 credits\\.$`,
        ),
      ),
    ]);
    await page.locator('#audit').scrollIntoViewIfNeeded();
    await screenshot(page, 'operator-08-audit', { fullPage: false });
  });

  it('when shown at phone width, then it stays clear (no sideways page scroll) and accessible', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#account').scrollIntoViewIfNeeded();
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'operator-09-phone');
    expect(await seriousViolations(page)).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
