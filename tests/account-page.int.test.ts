/**
 * The customer's account page in a real browser (Debian's Chromium through playwright-core)
 * against the platform `pnpm start` runs (scripts/platform.ts, in this process, the webhook address
 * rules on): sign in with the API key (a page session, also at 0), read the balance per
 * pool (low and empty pools marked) and the usage chart (values on hover and keyboard), change the
 * alert threshold (a bad one shows a sentence), set a balance webhook to a real HTTPS receiver and
 * send a test event, replace the key (the old key then gets 401 from curl), sign out (the session
 * is then refused). Every step leaves a screenshot in artifacts/screenshots/, axe-core finds no
 * serious violation, and the alert e-mails are rendered and followed: the zero-balance e-mail's
 * link opens the page of an account at 0, which signs in and shows 0 and where to buy credits.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type pg from 'pg';
import type { Page, Response } from 'playwright-core';
import { signServiceJwt } from '@platform/credentials';
import { createPool } from '@platform/db';
import {
  freePort,
  RESEARCH_POOL_NAMES,
  silentLogger,
  startSmtpCapture,
  startWebhookReceiver,
  type SmtpCapture,
  type WebhookReceiver,
} from '@platform/testing';
import { launchBrowser, screenshot, SCREENSHOTS, seriousViolations, type Browser } from './browser/browser';
import { openWatchedPage, startPagePlatform, type PagePlatform } from './browser/page-platform';
import { json } from './browser/http';

const ADMIN_TOKEN = `browser-admin-token-${randomUUID()}`;
const SERVICE_JWT_SECRET = `browser-service-jwt-secret-${randomUUID()}`;
const THRESHOLD_SENTENCE = 'Enter the threshold as a whole number of credits from 0 to 1,000,000,000, without spaces or separators.';
const TOP_UP_URL = 'https://billing.example.test/buy-credits';
const DAY_MS = 86_400_000;
/** The tab's sessionStorage, typed for callbacks that run in the page (the tests have no DOM types). */
type InTab = { sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void; length: number } };

let smtp: SmtpCapture;
let receiver: WebhookReceiver;
let webhookSecret: string;
let platform: PagePlatform;
let browser: Browser;
let pool: pg.Pool;
let account: { id: number; apiKey: string };
let page: Page;
let accountPage: Response | null;
const cspViolations: string[] = [];

/** Not spawnSync: the services run in this process and must answer meanwhile. */
async function curlStatus(url: string): Promise<string> {
  return (await promisify(execFile)('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', url], { encoding: 'utf8' })).stdout;
}

/** A debit through the internal usage API, as a product service makes it. */
async function use(credential: string, productId: number, units: number): Promise<void> {
  const jwt = signServiceJwt({ issuer: 'browser-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 });
  const res = await json(`${platform.urls.user}/internal/v1/usage`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${jwt}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ credential, productId, units, requestId: randomUUID() }),
  });
  expect(res.status).toBe(200);
}

/** Four weeks of earlier usage, written into the ledger as the usage API writes it (its API cannot backdate). */
async function earlierUsage(accountId: number): Promise<void> {
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  for (let daysAgo = 29; daysAgo >= 1; daysAgo -= 1) {
    const at = new Date(today - daysAgo * DAY_MS + 12 * 3_600_000);
    const weekday = (daysAgo % 7) + 1;
    const rows: Array<[number, number, number]> = [
      [1, 1, 20 + ((daysAgo * 37) % 60)],
      [1, 24, daysAgo % 3 === 0 ? 15 + weekday * 4 : 0],
      [14, 103, daysAgo % 2 === 0 ? 10 + ((daysAgo * 13) % 25) : 0],
    ];
    for (const [poolId, productId, units] of rows.filter((row) => row[2] > 0)) {
      await pool.query(
        `INSERT INTO credit_ledger (account_id, pool_id, product_id, delta, credits_after, cause, request_id, created_at)
         VALUES ($1, $2, $3, $4, 1000, 'usage', $5, $6)`,
        [accountId, poolId, productId, -units, randomUUID(), at],
      );
    }
  }
}

async function signIn(target: Page, apiKey: string): Promise<void> {
  await target.goto(`${platform.urls['account page']}`);
  await target.waitForSelector('body[data-state="signed-out"]');
  await target.fill('#api-key', apiKey);
  await target.click('#sign-in-form button[type="submit"]');
  await target.waitForSelector('body[data-state="signed-in"]');
}

beforeAll(async () => {
  smtp = await startSmtpCapture();
  receiver = await startWebhookReceiver();
  // A port the OS says is free now: the user service listens there, so the e-mails' links name it.
  const userPort = await freePort();
  platform = await startPagePlatform({
    name: 'account_page',
    how: 'in-process',
    env: {
      TOP_UP_URL,
      BRAND_NAME: 'Acme Data',
      USER_URL: `http://127.0.0.1:${userPort}`,
      SMTP_URL: smtp.url,
      ADMIN_TOKEN,
      SERVICE_JWT_SECRET,
      USER_PORT: String(userPort),
    },
    // The receiver is on loopback with a certificate only this run trusts: reached through a test
    // network, with the webhook address rules on.
    seams: { webhookNetwork: receiver.network(), webhookCa: receiver.ca },
  });
  pool = createPool({ connectionString: platform.database.url, logger: silentLogger(), max: 2 });
  const created = await json(`${platform.urls.user}/admin/v1/accounts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: 'ann@example.test', credits: { 1: 25_000, 14: 4_000, 7: 35 } }),
  });
  expect(created.status).toBe(201);
  account = created.body as { id: number; apiKey: string };
  await earlierUsage(account.id);
  await use(account.apiKey, 1, 64);
  await use(account.apiKey, 24, 18);
  await use(account.apiKey, 103, 27);
  browser = await launchBrowser();
  page = await openWatchedPage(browser, cspViolations);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  await pool?.end();
  await smtp?.close();
  await receiver?.close();
}, 60_000);

describe('the account page in Chromium against pnpm start', () => {
  it('when opened, then it asks for the API key, under a strict Content-Security-Policy and with no inline script', async () => {
    accountPage = await page.goto(platform.urls['account page']);
    await page.waitForSelector('body[data-state="signed-out"]');
    const csp = (await accountPage?.allHeaders())?.['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain(`connect-src 'self' ${new URL(platform.urls.auth).origin}`);
    const html = await accountPage?.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle="|\son[a-z]+="/);
    await screenshot(page, '01-sign-in');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('when a wrong key is given, then a sentence next to the field says so', async () => {
    await page.fill('#api-key', `at_${'x'.repeat(29)}`);
    await page.click('#sign-in-form button[type="submit"]');
    await page.waitForSelector('#api-key-error:not([hidden])');
    expect(await page.textContent('#api-key-error')).toMatch(/^That API key was not accepted\./);
    expect(await page.getAttribute('#api-key', 'aria-invalid')).toBe('true');
    await screenshot(page, '02-sign-in-refused');
  });

  it('when the key is given, then the page keeps only a token, and shows each pool with its products and credits', async () => {
    await page.fill('#api-key', account.apiKey);
    await page.click('#sign-in-form button[type="submit"]');
    await page.waitForSelector('body[data-state="signed-in"]');
    const stored = await page.evaluate(() => JSON.stringify({ ...(globalThis as unknown as InTab).sessionStorage }));
    expect(stored).toMatch(/ps_/);
    expect(stored).not.toContain(account.apiKey);
    expect(await page.inputValue('#api-key')).toBe('');

    const pools: Array<{ name: string | null; credits: string | null; products: string[] }> = [];
    for (const card of await page.locator('#pools article').all()) {
      pools.push({
        name: await card.locator('h3').textContent(),
        credits: await card.locator('.amount').textContent(),
        products: await card.locator('li').allTextContents(),
      });
    }
    expect(pools).toEqual([
      { name: 'WHOIS API', credits: '24,918', products: ['WHOIS API', 'Bulk WHOIS API'] },
      { name: 'Email Verification API', credits: '35', products: [] },
      {
        name: 'Domain Research Suite',
        credits: '3,973',
        products: RESEARCH_POOL_NAMES,
      },
    ]);
    expect(await page.textContent('#signed-in-as')).toBe(`ann@example.test · account ${account.id}`);
    expect(await page.isHidden('#balance-summary')).toBe(true);
    expect(await page.textContent('#brand')).toBe('Acme Data');
    expect(await page.getAttribute('#top-up', 'href')).toBe(TOP_UP_URL);
    await screenshot(page, '03-account');
    await page.screenshot({
      path: path.join(SCREENSHOTS, '00-overview.png'),
      fullPage: true,
      clip: { x: 0, y: 0, width: 1200, height: 1160 },
    });
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('when the usage section is read, then the chart is drawn and the table holds the same numbers', async () => {
    expect(await page.locator('#usage-chart canvas').count()).toBe(1);
    const header = await page.locator('#usage-table thead th').allTextContents();
    expect(header).toEqual(['Date (UTC)', 'WHOIS API', 'Bulk WHOIS API', 'Reverse WHOIS API']);
    const today = new Date().toISOString().slice(0, 10);
    const firstRow = await page.locator('#usage-table tbody tr').first().locator('th, td').allTextContents();
    expect(firstRow).toEqual([today, '64', '18', '27']);
    const history = await json(`${platform.urls.user}/user-service/usage-history?apiKey=${account.apiKey}`);
    const totals = new Map<number, number>();
    for (const row of (history.body as { data: Array<{ product_id: number; credits_used: number }> }).data) {
      totals.set(row.product_id, (totals.get(row.product_id) ?? 0) + row.credits_used);
    }
    const footer = await page.locator('#usage-table tfoot td').allTextContents();
    expect(footer).toEqual([1, 24, 103].map((id) => (totals.get(id) ?? 0).toLocaleString('en-US')));
    // The chart's values: under the pointer, and day by day with the arrow keys.
    const chart = page.locator('#usage-chart');
    // In view first: the screenshot below must not scroll the chart away from under the pointer.
    await page.locator('#usage').scrollIntoViewIfNeeded();
    const box = await chart.boundingBox();
    await page.mouse.move((box?.x ?? 0) + (box?.width ?? 0) * 0.97, (box?.y ?? 0) + 100);
    await page.waitForFunction(() =>
      /credits used\.$/.test(
        String(
          (globalThis as unknown as { document: { getElementById(id: string): { textContent: string } | null } }).document.getElementById(
            'usage-readout',
          )?.textContent,
        ),
      ),
    );
    expect(await page.textContent('#usage-readout')).toMatch(
      /^[A-Z][a-z]{2} \d{1,2}: WHOIS API [\d,]+, Bulk WHOIS API [\d,]+, Reverse WHOIS API [\d,]+ credits used\.$/,
    );
    await page.locator('#usage').screenshot({ path: path.join(SCREENSHOTS, '04a-usage-hover.png') });
    await page.mouse.move(0, 0);
    await chart.focus();
    await page.keyboard.press('End');
    const todayWords = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(new Date());
    await page.waitForSelector(`#usage-readout:has-text("${todayWords}:")`);
    expect(await page.textContent('#usage-readout')).toBe(
      `${todayWords}: WHOIS API 64, Bulk WHOIS API 18, Reverse WHOIS API 27 credits used.`,
    );
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(
      (today) =>
        !String(
          (globalThis as unknown as { document: { getElementById(id: string): { textContent: string } | null } }).document.getElementById(
            'usage-readout',
          )?.textContent,
        ).startsWith(today),
      todayWords,
    );
    await page.locator('#usage').screenshot({ path: path.join(SCREENSHOTS, '04b-usage-keyboard.png') });
    await page.click('#usage-numbers summary');
    await page.locator('#usage').screenshot({ path: path.join(SCREENSHOTS, '04-usage.png') });
  });

  it('when a bad threshold is saved, then a sentence shows next to the field; a good one is saved and marks the pools under it', async () => {
    await page.fill('#threshold', '-5');
    await page.click('#alerts-form button[type="submit"]');
    await page.waitForSelector('#threshold-error:not([hidden])');
    expect(await page.textContent('#threshold-error')).toBe(THRESHOLD_SENTENCE);
    await page.locator('#alerts').scrollIntoViewIfNeeded();
    await screenshot(page, '05-threshold-refused', { fullPage: false });

    await page.fill('#threshold', '40');
    await page.click('#alerts-form button[type="submit"]');
    await page.waitForSelector('#alerts-saved:has-text("Alerts saved.")');
    expect(await page.isHidden('#threshold-error')).toBe(true);
    const settings = await json(`${platform.urls.user}/user-service/notification-settings?apiKey=${account.apiKey}`);
    expect(settings.body).toEqual({
      lowBalanceAlert: { enabled: true, threshold: 40 },
      zeroBalanceAlert: { enabled: true },
      email: 'ann@example.test',
      webhook: null,
    });
    await screenshot(page, '06-threshold-saved', { fullPage: false });
    await page.reload();
    await page.waitForSelector('body[data-state="signed-in"]');
    const low = page.locator('#pools article[data-status="low"]');
    expect(await low.locator('h3').allTextContents()).toEqual(['Email Verification API']);
    expect(await low.locator('.status').textContent()).toBe('Low: under your alert threshold');
    expect(await low.locator('a.pool-action').getAttribute('href')).toBe(TOP_UP_URL);
    await page.locator('#balance').screenshot({ path: path.join(SCREENSHOTS, '06b-pool-low.png') });
  });

  it('when a webhook is set, then its secret shows once, a test event reaches the receiver signed, and the attempt is listed', async () => {
    await page.locator('#webhook').scrollIntoViewIfNeeded();
    expect(await page.textContent('#webhook-state')).toBe('No webhook is set.');
    await page.fill('#webhook-url', 'ftp://example.com/hooks');
    await page.click('#webhook-form button[type="submit"]');
    await page.waitForSelector('#webhook-url-error:not([hidden])');
    expect(await page.textContent('#webhook-url-error')).toMatch(/^That address cannot receive webhooks\. Use an https:\/\/ address/);
    await page.locator('#webhook').screenshot({ path: path.join(SCREENSHOTS, '07a-webhook-refused.png') });

    await page.fill('#webhook-url', receiver.url);
    await page.click('#webhook-form button[type="submit"]');
    await page.waitForSelector('#webhook-saved:has-text("Webhook saved.")');
    webhookSecret = await page.inputValue('#webhook-secret-value');
    expect(webhookSecret).toMatch(/^whsec_/);
    await page.locator('#webhook').screenshot({ path: path.join(SCREENSHOTS, '07b-webhook-secret.png') });
    expect(await seriousViolations(page)).toEqual([]);

    await page.click('#webhook-test');
    await page.waitForSelector('#webhook-saved:has-text("Test event delivered")');
    expect(await page.textContent('#webhook-saved')).toBe('Test event delivered (your endpoint answered 200).');
    const [sent] = await receiver.waitFor(1);
    expect(receiver.verify(webhookSecret, sent!)).toMatchObject({ type: 'webhook.test', data: { accountId: account.id } });
    // The deliveries list is read again after the test send: wait for its row, not for the notice.
    await page.waitForSelector('#webhook-deliveries tbody tr td:has-text("webhook.test")');
    expect(await page.locator('#webhook-deliveries tbody tr td').allTextContents()).toEqual(['webhook.test', 'Delivered (200)', '—']);
    await page.locator('#webhook').screenshot({ path: path.join(SCREENSHOTS, '07c-webhook-tested.png') });
    // The secret is not shown again.
    await page.reload();
    await page.waitForSelector('body[data-state="signed-in"]');
    expect(await page.isHidden('#webhook-secret')).toBe(true);
    expect(await page.inputValue('#webhook-url')).toBe(receiver.url);
  });

  it('when the key is replaced, then the dialog warns first, the new key is shown once, and the old key gets 401 from curl', async () => {
    const balanceByKey = (key: string) => `${platform.urls.user}/user-service/account-balance?apiKey=${key}`;
    expect(await curlStatus(balanceByKey(account.apiKey))).toBe('200');
    await page.click('#rotate-open');
    await page.waitForSelector('#rotate-dialog[open]');
    expect(await page.textContent('#rotate-warning')).toMatch(/current key and every access token made from it stop working at once/);
    await screenshot(page, '08a-rotate-confirm', { fullPage: false });
    expect(await seriousViolations(page)).toEqual([]);

    await page.fill('#current-key', account.apiKey);
    await page.click('#rotate-confirm');
    await page.waitForSelector('#new-key:not([hidden])');
    const newKey = await page.inputValue('#new-key-value');
    expect(newKey).toMatch(/^at_[A-Za-z0-9]{29}$/);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(platform.urls.user).origin });
    await page.click('#copy-key');
    await page.waitForSelector('#copy-status:has-text("Copied")');
    const clipboard = await page.evaluate(() =>
      (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
    );
    expect(clipboard).toBe(newKey);
    await page.locator('#key').scrollIntoViewIfNeeded();
    await screenshot(page, '08b-new-key', { fullPage: false });

    expect(await curlStatus(balanceByKey(account.apiKey))).toBe('401');
    expect(await curlStatus(balanceByKey(newKey))).toBe('200');
    await page.click('#new-key-done');
    expect(await page.inputValue('#new-key-value')).toBe('');
    // The page traded the new key for a new session: it still reads the account.
    await page.reload();
    await page.waitForSelector('body[data-state="signed-in"]');
    account = { ...account, apiKey: newKey };
  });

  it('when the session token no longer works, then the page says so in a sentence and asks for the key', async () => {
    const saved = await page.evaluate(() => (globalThis as unknown as InTab).sessionStorage.getItem('account-access.session'));
    await page.evaluate(() => {
      const session = JSON.parse((globalThis as unknown as InTab).sessionStorage.getItem('account-access.session') ?? '{}') as {
        expiresAt: number;
      };
      (globalThis as unknown as InTab).sessionStorage.setItem(
        'account-access.session',
        JSON.stringify({ token: `tk_${'A'.repeat(43)}`, expiresAt: session.expiresAt }),
      );
    });
    await page.reload();
    await page.waitForSelector('body[data-state="signed-out"]');
    const notice = await page.textContent('#notice');
    expect(notice).toMatch(/^Your session has ended/);
    expect(notice).not.toMatch(/[{}]/);
    await screenshot(page, '09-session-ended');
    await page.evaluate((value) => (globalThis as unknown as InTab).sessionStorage.setItem('account-access.session', value ?? ''), saved);
    await page.reload();
    await page.waitForSelector('body[data-state="signed-in"]');
  });

  it('when signed out, then the session is refused and the tab keeps nothing; the session never bought a token', async () => {
    const session = JSON.parse(
      (await page.evaluate(() => (globalThis as unknown as InTab).sessionStorage.getItem('account-access.session'))) ?? '{}',
    ) as { token: string };
    const whoAmI = () => json(`${platform.urls.user}/account/session`, { headers: { Authorization: `Bearer ${session.token}` } });
    expect((await whoAmI()).status).toBe(200);
    // The token endpoint mints only from the key: the page's session buys nothing there.
    const minted = await json(`${platform.urls.auth}/oauth/token`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${Buffer.from(session.token).toString('base64')}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ grantType: 'access_token', expiresIn: 3600 }),
    });
    expect(minted.status).toBe(401);
    await page.click('#sign-out');
    await page.waitForSelector('body[data-state="signed-out"]');
    expect(await page.textContent('#notice')).toMatch(/^You are signed out\./);
    expect((await whoAmI()).status).toBe(401);
    expect(await page.evaluate(() => (globalThis as unknown as InTab).sessionStorage.length)).toBe(0);
    await screenshot(page, '10-signed-out');
  });

  it('when opened on a phone-width screen, then nothing overflows sideways and axe finds no serious violation', async () => {
    const phone = await browser.context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await signIn(phone, account.apiKey);
    const width = await phone.evaluate(
      () => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth,
    );
    expect(width).toBeLessThanOrEqual(390);
    await screenshot(phone, '11-phone');
    // The numbers table stacks each day's values under their product's name: no column is hidden sideways.
    await phone.click('#usage-numbers summary');
    const table = phone.locator('#usage-table');
    const scroll = await table.evaluate((element) => ({ scroll: element.scrollWidth, client: element.clientWidth }));
    expect(scroll.scroll).toBeLessThanOrEqual(scroll.client);
    await table.screenshot({ path: path.join(SCREENSHOTS, '11b-phone-usage-table.png') });
    await phone.locator('#webhook').screenshot({ path: path.join(SCREENSHOTS, '11c-phone-webhook.png') });
    expect(await seriousViolations(phone)).toEqual([]);
    await phone.close();
  });

  it('when no page script broke the Content-Security-Policy, then the console has no violation', () => {
    expect(cspViolations).toEqual([]);
  });
});

describe('the alert e-mails and the balance webhooks', () => {
  it('when a pool crosses the threshold and then reaches 0, then both e-mails name the account and the pool in one row, and two signed webhooks', async () => {
    // The lookup pool (WHOIS API and Bulk WHOIS API, 24,918 credits) down to 38, under the threshold of 40, then to 0.
    for (const units of [10_000, 10_000, 4_880]) await use(account.apiKey, 24, units);
    await use(account.apiKey, 1, 38);
    const mails = await smtp.waitFor(2, 30_000);
    const bySubject = new Map(mails.map((mail) => [mail.subject?.split(':')[0], mail]));
    for (const [subject, name] of [
      ['Low balance alert', '12-email-low-balance'],
      ['Zero balance alert', '13-email-zero-balance'],
    ] as const) {
      const mail = bySubject.get(subject);
      expect(mail?.from?.value).toEqual([{ name: 'Acme Data', address: 'alerts@localhost' }]);
      expect(mail?.text).toContain(`This alert is about your Acme Data account ann@example.test (account id ${account.id}).`);
      expect(mail?.text).toContain(`${platform.urls.user}/account/#alerts`);
      const html = typeof mail?.html === 'string' ? mail.html : '';
      expect(html).toMatch(new RegExp(`<a href="${TOP_UP_URL}"[^>]*>Buy credits</a>`));
      const rendered = await browser.context.newPage();
      await rendered.setContent(html);
      const credits = subject === 'Low balance alert' ? '38' : '0';
      // One row for the pool: its name with the products that share it, and the credits.
      expect(await rendered.locator('td:has(> strong)').allTextContents()).toEqual(['WHOIS APIShared with Bulk WHOIS API']);
      expect(await rendered.locator('td:has(> strong) + td').allTextContents()).toEqual([credits]);
      await screenshot(rendered, name);
      await rendered.close();
    }
    // The same two crossings as webhooks, each verifying with the secret shown once.
    // The dispatcher sends deliveries side by side (one slow receiver delays no other), so the two
    // crossings may arrive, and be recorded, in either order.
    const events = (await receiver.waitFor(3, 30_000)).slice(1).map((entry) => receiver.verify(webhookSecret, entry));
    const crossings = events.map((event) => [event.type, event.data.credits, event.data.products]);
    expect(crossings.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ['balance.low', 38, [1, 24]],
      ['balance.zero', 0, [1, 24]],
    ]);
    await signIn(page, account.apiKey);
    await page.waitForSelector('#webhook-deliveries tbody tr:nth-child(3)');
    const listed = await page.locator('#webhook-deliveries tbody tr td:first-of-type').allTextContents();
    expect([...listed.slice(0, 2).sort(), ...listed.slice(2)]).toEqual(['balance.low', 'balance.zero', 'webhook.test']);
    await page.locator('#webhook').scrollIntoViewIfNeeded();
    await page.locator('#webhook').screenshot({ path: path.join(SCREENSHOTS, '14-webhook-deliveries.png') });
  }, 60_000);

  it("when an account's every pool reaches 0, then the zero-balance e-mail's link opens the page, which signs in and shows 0 and where to buy credits", async () => {
    const created = await json(`${platform.urls.user}/admin/v1/accounts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'zoe@example.test', credits: { 7: 5 } }),
    });
    const zoe = created.body as { id: number; apiKey: string };
    await use(zoe.apiKey, 7, 5);
    const mail = (await smtp.waitFor(3, 30_000)).find((message) => JSON.stringify(message.to).includes('zoe@example.test'));
    expect(mail?.subject).toBe('Zero balance alert: Email Verification API has no credits left');
    const html = typeof mail?.html === 'string' ? mail.html : '';
    const link = /<a href="([^"]+)"[^>]*>Open your account page<\/a>/.exec(html)?.[1];
    expect(link).toBe(`${platform.urls.user}/account/`);
    // The token endpoint refuses the account (every pool at 0); the page does not.
    const minted = await json(`${platform.urls.auth}/oauth/token`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${Buffer.from(zoe.apiKey).toString('base64')}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ grantType: 'access_token', expiresIn: 3600 }),
    });
    expect(minted.status).toBe(401);
    const atZero = await browser.context.newPage();
    await atZero.goto(link as string);
    await atZero.waitForSelector('body[data-state="signed-out"]');
    await atZero.fill('#api-key', zoe.apiKey);
    await atZero.click('#sign-in-form button[type="submit"]');
    await atZero.waitForSelector('body[data-state="signed-in"]');
    const empty = atZero.locator('#pools article[data-status="empty"]');
    expect(await empty.locator('.amount').textContent()).toBe('0');
    expect(await empty.locator('.status').textContent()).toBe('Empty: API calls are refused');
    expect(await empty.locator('a.pool-action').getAttribute('href')).toBe(TOP_UP_URL);
    expect(await atZero.textContent('#signed-in-as')).toBe(`zoe@example.test · account ${zoe.id}`);
    expect(await atZero.textContent('#balance-summary')).toBe(
      'Every balance is at 0: API calls are refused until credits are added. Buy credits',
    );
    await screenshot(atZero, '15-page-at-zero');
    expect(await seriousViolations(atZero)).toEqual([]);
    await atZero.close();
  }, 60_000);
});

it('keeps the built page free of inline code', () => {
  const built = readFileSync(path.resolve(__dirname, '../packages/account-page/dist/index.html'), 'utf8');
  expect(built).toMatch(/<script type="module" crossorigin src="\/account\/assets\/[^"]+\.js"><\/script>/);
  expect(built).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style/);
});
