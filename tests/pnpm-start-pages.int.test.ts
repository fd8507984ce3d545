/**
 * What a browser gets from `pnpm start` on ports other than the defaults (USER_PORT=0: the user
 * service on any free port): an alert e-mail links to the account page where the user service
 * really listens (ACCOUNT_PAGE_URL derived at start), and every service's `/docs` draws its
 * `/openapi.json` in Chromium under its Content-Security-Policy, with no violation.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { signServiceJwt } from '@platform/credentials';
import { eventually } from '@platform/testing';
import { launchBrowser, screenshot, type Browser } from './browser/browser';
import { startPagePlatform, type PagePlatform } from './browser/page-platform';

const ADMIN_TOKEN = `pages-admin-token-${randomUUID()}`;
const SERVICE_JWT_SECRET = `pages-service-jwt-secret-${randomUUID()}`;

let platform: PagePlatform;
let browser: Browser;

async function post(url: string, authorization: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const reply = await fetch(url, {
    method: 'POST',
    headers: { Authorization: authorization, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: reply.status, body: await reply.json() };
}

beforeAll(async () => {
  // No SMTP_URL: e-mails land as .eml files in DATA_DIR/outbox. No USER_URL nor ACCOUNT_PAGE_URL.
  platform = await startPagePlatform({ name: 'pnpm_start_pages', env: { ADMIN_TOKEN, SERVICE_JWT_SECRET } });
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

describe('pnpm start on moved ports', () => {
  it('when a pool reaches 0, then the e-mail links to the account page on the port the user service listens on', async () => {
    expect(platform.urls.user).not.toMatch(/:8082$/);
    const created = await post(`${platform.urls.user}/admin/v1/accounts`, `Bearer ${ADMIN_TOKEN}`, {
      email: 'links@example.test',
      credits: { 1: 1 },
    });
    expect(created.status).toBe(201);
    const { apiKey } = created.body as { apiKey: string };
    const jwt = signServiceJwt({ issuer: 'pages-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 });
    const used = await post(`${platform.urls.user}/internal/v1/usage`, `Bearer ${jwt}`, {
      credential: apiKey,
      productId: 1,
      units: 1,
      requestId: randomUUID(),
    });
    expect(used.status).toBe(200);

    const outbox = path.join(platform.dataDir, 'outbox');
    const mail = await eventually(
      // The folder is made with the first e-mail; an e-mail is written as `.eml.partial`, then renamed.
      () =>
        existsSync(outbox) ? readdirSync(outbox).find((name) => name.startsWith('zero-balance-alert') && name.endsWith('.eml')) : undefined,
      30_000,
      'the zero-balance e-mail',
    );
    // Both parts are quoted-printable: soft line breaks and `=3D` undone.
    const text = readFileSync(path.join(outbox, mail), 'utf8')
      .replace(/=\r?\n/g, '')
      .replace(/=3D/g, '=');
    const accountPage = `${platform.urls.user.replace('//0.0.0.0:', '//127.0.0.1:')}/account/`;
    expect(text).toContain(`${accountPage}#alerts`);
    expect(text).toContain(`href="${accountPage}"`);
    expect(text).not.toContain('127.0.0.1:8082');
  });
});

describe('/docs on every service', () => {
  it.each(['auth', 'user', 'categorization', 'notifier'] as const)(
    'when the %s service’s /docs opens in Chromium, then it lists every operation of its /openapi.json, with no CSP violation',
    async (service) => {
      const base = platform.urls[service].replace('//0.0.0.0:', '//127.0.0.1:');
      const document = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
      const operations = Object.entries(document.paths).flatMap(([route, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${route}`),
      );
      const page = await browser.context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      const answer = await page.goto(`${base}/docs`);
      expect(answer?.headers()['content-security-policy']).toMatch(/script-src 'self';/);
      await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
      const methods = await page.locator('.opblock-summary-method').allTextContents();
      const paths = await Promise.all(
        (await page.locator('.opblock-summary-path, .opblock-summary-path__deprecated').all()).map((path) =>
          path.getAttribute('data-path'),
        ),
      );
      const shown = methods.map((method, index) => `${method} ${paths[index] ?? ''}`);
      expect([...shown].sort()).toEqual([...operations].sort());
      await screenshot(page, `docs-${service}`, { fullPage: false });
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
