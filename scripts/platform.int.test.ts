import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { signServiceJwt } from '@platform/credentials';
import { accountWithToken } from '@platform/testing';
import { startPlatform, type EmbeddedPlatform } from '@platform/testing/platform';

const SERVICE_JWT_SECRET = 'platform-test-service-jwt-secret-0123456789';

/**
 * `pnpm start` exactly as a newcomer runs it: a child process with no infrastructure variable,
 * so every component is embedded. (PGlite loads its engine through a dynamic import that jest's
 * module sandbox cannot run, which is one more reason to test the real process.)
 */
describe('pnpm start (embedded quickstart)', () => {
  let dataDir: string;
  let platform: EmbeddedPlatform;
  let output = '';
  let urls: EmbeddedPlatform['urls'];
  let adminToken = '';

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'platform-'));
    platform = await startPlatform({
      mode: 'embedded',
      env: {
        DATA_DIR: dataDir,
        AUTH_PORT: '0',
        USER_PORT: '0',
        CATEGORIZATION_PORT: '0',
        NOTIFIER_PORT: '0',
        LOG_LEVEL: 'warn',
        SERVICE_JWT_SECRET,
      },
      timeoutMs: 150_000,
    });
    output = platform.output();
    urls = platform.urls;
    adminToken = (/admin token\s+(\S+)/.exec(output) as RegExpExecArray)[1] as string;
  }, 180_000);

  afterAll(async () => {
    await platform?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when started with no infrastructure variables, then it names the embedded parts and all four services are ready', async () => {
    expect(output).toContain('(embedded: postgres, access store, event bus, mail outbox)');
    expect(adminToken).toMatch(/^[0-9a-f]{48}$/);
    expect(output).toContain(`admin token     ${adminToken} (generated; set ADMIN_TOKEN or ADMIN_TOKENS to choose)`);
    for (const url of Object.values(urls)) {
      const response = await request(url).get('/health/ready');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ready' });
    }
  });

  it('when an account is created, then its key buys a token that reads the balance, and rotation revokes it', async () => {
    const { apiKey, accessToken: token } = await accountWithToken({ user: urls.user, auth: urls.auth }, adminToken, {
      email: 'quickstart@example.com',
      credits: { '24': 40 },
    });

    const balance = await request(urls.user)
      .get('/user-service/account-balance')
      .query({ productId: '1' })
      .set('Authorization', `Bearer ${token}`);
    expect(balance.body).toEqual({ data: [{ product_id: 1, product: { id: 1, name: 'WHOIS API' }, credits: 40 }] });

    const statusOf = async (path: string, query: Record<string, string>) => (await request(urls.user).get(path).query(query)).status;
    expect(await statusOf('/user-service/api-key/generate', { currentApiKey: apiKey })).toBe(200);
    expect(await statusOf('/user-service/account-balance', { apiKey: token })).toBe(401);
  });

  it('when the categories are listed, then the IAB taxonomy was imported into the embedded database', async () => {
    const response = await request(urls.categorization).get('/api/v2/categories');
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(698);
    expect((response.body as unknown[])[0]).toEqual({ id: 'IAB-1', name: 'Automotive', parent: null });
  });

  it('when the data folder is inspected, then the database lives there', () => {
    expect(readdirSync(dataDir)).toContain('pg');
  });

  it('when an admin adjustment takes a pool from 12 to 5 credits, then a "Low balance alert" e-mail is written to DATA_DIR/outbox', async () => {
    const admin = `Bearer ${adminToken}`;
    const created = await request(urls.user)
      .post('/admin/v1/accounts')
      .set('Authorization', admin)
      .send({ email: 'low-balance@example.com', credits: { '1': 12 } });
    expect(created.status).toBe(201);
    const adjusted = await request(urls.user)
      .post(`/admin/v1/accounts/${created.body.id as number}/credits`)
      .set('Authorization', admin)
      .send({ productId: 1, amount: -7 });
    expect(adjusted.body).toEqual({ productId: 1, credits: 5 });

    const outbox = path.join(dataDir, 'outbox');
    const lowAlerts = (): string[] =>
      (existsSync(outbox) ? readdirSync(outbox) : [])
        .filter((file) => file.endsWith('.eml'))
        .map((file) => readFileSync(path.join(outbox, file), 'utf8'))
        .filter((mail) => /^Subject: Low balance alert/m.test(mail) && mail.includes('low-balance@example.com'));
    const deadline = Date.now() + 15_000;
    while (lowAlerts().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const mails = lowAlerts();
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain('WHOIS API');
  });

  it('when 30 debits race for 10 credits on the one embedded connection, then exactly 10 succeed and a replay gets the first answer', async () => {
    const created = await request(urls.user)
      .post('/admin/v1/accounts')
      .set('Authorization', `Bearer ${adminToken}`)
      .send({ email: 'metering@example.com', credits: { '1': 10 } });
    expect(created.status).toBe(201);
    const jwt = signServiceJwt({ issuer: 'platform-test', audience: 'user', secret: SERVICE_JWT_SECRET, ttlSeconds: 60 });
    const debit = (requestId: string) =>
      request(urls.user)
        .post('/internal/v1/usage')
        .set('Authorization', `Bearer ${jwt}`)
        .send({ credential: created.body.apiKey as string, productId: 24, units: 1, requestId });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => debit(`race-${index}`)));
    const granted = answers.filter((res) => res.status === 200);
    expect(granted).toHaveLength(10);
    expect(answers.filter((res) => res.status === 403)).toHaveLength(20);
    expect(granted.map((res) => res.body.credits as number).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const first = answers.findIndex((res) => res.status === 200);
    expect((await debit(`race-${first}`)).body).toEqual(answers[first]?.body);
  });

  it('when sent SIGTERM, then it stops every service and exits 0', async () => {
    // stop(): SIGTERM, then waits for the exit.
    await platform.stop();
    expect(platform.exitCode()).toBe(0);
  });
});
