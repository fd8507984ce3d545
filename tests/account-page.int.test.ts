/**
 * The customer's account page in a real browser (Debian's Chromium through playwright-core)
 * against `pnpm start`: sign in with the API key, read the balance per pool and the usage chart,
 * change the alert threshold (a bad one shows the API's message), replace the key (the old key
 * then gets 401 from curl), sign out (the token is then inactive at introspection). Every step
 * leaves a screenshot in artifacts/screenshots/, axe-core finds no serious violation, and the two
 * alert e-mails the platform sends are rendered and kept as screenshots too.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import type { Page, Response } from 'playwright-core';
import { signServiceJwt } from '@platform/credentials';
import { createPool } from '@platform/db';
import { createPrivateDatabase, silentLogger, startSmtpCapture, type PrivateDatabase, type SmtpCapture } from '@platform/testing';
import { launchBrowser, screenshot, SCREENSHOTS, seriousViolations, type Browser } from './browser/browser';
import { pnpmStart, type StartedPlatform } from './browser/pnpm-start';

const ADMIN_TOKEN = `browser-admin-token-${randomUUID()}`;
const SERVICE_JWT_SECRET = `browser-service-jwt-secret-${randomUUID()}`;
const THRESHOLD_INVALID = 'The selected low balance alert.threshold is invalid.';
const DAY_MS = 86_400_000;
/** The tab's sessionStorage, typed for callbacks that run in the page (the tests have no DOM types). */
type InTab = { sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void; length: number } };

let database: PrivateDatabase;
let smtp: SmtpCapture;
let platform: StartedPlatform;
let browser: Browser;
let pool: pg.Pool;
let dataDir: string;
let account: { id: number; apiKey: string };
let page: Page;
let accountPage: Response | null;
const cspViolations: string[] = [];

function curlStatus(url: string): string {
  const result = spawnSync('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', url], { encoding: 'utf8' });
  return result.stdout;
}

async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
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
  database = await createPrivateDatabase('account_page');
  smtp = await startSmtpCapture();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'aap-page-'));
  platform = await pnpmStart({
    DATABASE_URL: database.url,
    SMTP_URL: smtp.url,
    ADMIN_TOKEN,
    SERVICE_JWT_SECRET,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    AUTH_PORT: '0',
    USER_PORT: '0',
    CATEGORIZATION_PORT: '0',
    NOTIFIER_PORT: '0',
  });
  pool = createPool({ connectionString: database.url, logger: silentLogger(), max: 2 });
  const created = await json(`${platform.urls.user}/admin/v1/accounts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: 'ann@example.test', credits: { 1: 25_000, 14: 4_000, 7: 60 } }),
  });
  expect(created.status).toBe(201);
  account = created.body as { id: number; apiKey: string };
  await earlierUsage(account.id);
  await use(account.apiKey, 1, 64);
  await use(account.apiKey, 24, 18);
  await use(account.apiKey, 103, 27);
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  await pool?.end();
  await smtp?.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
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
    expect(stored).toMatch(/tk_/);
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
      { name: 'Email Verification API', credits: '60', products: [] },
      {
        name: 'Domain Research Suite',
        credits: '3,973',
        products: [
          'Domain Research Suite',
          'Screenshot API',
          'Brand Alert API',
          'Registrant Alert API',
          'Reverse WHOIS API',
          'WHOIS History API',
          'Reverse IP API',
          'Reverse MX API',
          'Reverse NS API',
          'Subdomains Lookup API',
          'Domains & Subdomains Discovery API',
        ],
      },
    ]);
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
    await page.click('#usage-numbers summary');
    await page.locator('#usage').screenshot({ path: path.join(SCREENSHOTS, '04-usage.png') });
  });

  it('when a bad threshold is saved, then the API’s message shows next to the field; a good one is saved', async () => {
    await page.fill('#threshold', '-5');
    await page.click('#alerts-form button[type="submit"]');
    await page.waitForSelector('#threshold-error:not([hidden])');
    expect(await page.textContent('#threshold-error')).toBe(THRESHOLD_INVALID);
    await page.locator('#alerts').scrollIntoViewIfNeeded();
    await screenshot(page, '05-threshold-refused', { fullPage: false });

    await page.fill('#threshold', '40');
    await page.click('#alerts-form button[type="submit"]');
    await page.waitForSelector('#alerts-saved:has-text("Alerts saved.")');
    expect(await page.isHidden('#threshold-error')).toBe(true);
    const settings = await json(`${platform.urls.user}/user-service/notification-settings?apiKey=${account.apiKey}`);
    expect(settings.body).toEqual({ lowBalanceAlert: { enabled: true, threshold: 40 }, zeroBalanceAlert: { enabled: true } });
    await screenshot(page, '06-threshold-saved', { fullPage: false });
  });

  it('when the key is replaced, then the dialog warns first, the new key is shown once, and the old key gets 401 from curl', async () => {
    const balanceByKey = (key: string) => `${platform.urls.user}/user-service/account-balance?apiKey=${key}`;
    expect(curlStatus(balanceByKey(account.apiKey))).toBe('200');
    await page.click('#rotate-open');
    await page.waitForSelector('#rotate-dialog[open]');
    expect(await page.textContent('#rotate-warning')).toMatch(/current key and every access token made from it stop working at once/);
    await screenshot(page, '07-rotate-confirm', { fullPage: false });
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
    await screenshot(page, '08-new-key', { fullPage: false });

    expect(curlStatus(balanceByKey(account.apiKey))).toBe('401');
    expect(curlStatus(balanceByKey(newKey))).toBe('200');
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

  it('when signed out, then the token is inactive at introspection and the tab keeps nothing', async () => {
    const session = JSON.parse(
      (await page.evaluate(() => (globalThis as unknown as InTab).sessionStorage.getItem('account-access.session'))) ?? '{}',
    ) as { token: string };
    const introspect = () =>
      json(`${platform.urls.auth}/oauth/introspect`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: session.token }).toString(),
      });
    expect((await introspect()).body).toMatchObject({ active: true });
    await page.click('#sign-out');
    await page.waitForSelector('body[data-state="signed-out"]');
    expect(await page.textContent('#notice')).toMatch(/^You are signed out\./);
    expect((await introspect()).body).toEqual({ active: false });
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
    expect(await seriousViolations(phone)).toEqual([]);
    await phone.close();
  });

  it('when no page script broke the Content-Security-Policy, then the console has no violation', () => {
    expect(cspViolations).toEqual([]);
  });
});

describe('the alert e-mails', () => {
  it('when a pool crosses the threshold and then reaches 0, then both e-mails lead to the page and render like it', async () => {
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
      expect(mail?.text).toMatch(/\/account\/#alerts/);
      const html = typeof mail?.html === 'string' ? mail.html : '';
      expect(html).toMatch(/<a href="[^"]*\/account\/#alerts"[^>]*>Open your account page<\/a>/);
      const rendered = await browser.context.newPage();
      await rendered.setContent(html);
      const credits = subject === 'Low balance alert' ? '38' : '0';
      expect(await rendered.locator('td').allTextContents()).toEqual(
        expect.arrayContaining(['WHOIS API', credits, 'Bulk WHOIS API', credits]),
      );
      await screenshot(rendered, name);
      await rendered.close();
    }
  }, 60_000);
});

it('keeps the built page free of inline code', () => {
  const built = readFileSync(path.resolve(__dirname, '../packages/account-page/dist/index.html'), 'utf8');
  expect(built).toMatch(/<script type="module" crossorigin src="\/account\/assets\/[^"]+\.js"><\/script>/);
  expect(built).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style/);
});
