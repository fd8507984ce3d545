import { existsSync } from 'node:fs';
import path from 'node:path';
import { accountPageDir } from '../src/routes/account-page.routes';
import { startHarness, testConfig, type Harness } from './harness';

// The jest global setup builds the page (packages/account-page/dist) before the tests run.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: testConfig({ ACCOUNT_PAGE_AUTH_URL: 'https://auth.example.test:8443/' }) });
});
afterAll(async () => {
  await h.stop();
});

describe('/account/: the account page', () => {
  it('when the page is built, then the service finds it in the @platform/account-page package it depends on', () => {
    const dir = accountPageDir();
    expect(dir).toBe(path.resolve(__dirname, '../../../packages/account-page/dist'));
    expect(existsSync(path.join(dir as string, 'index.html'))).toBe(true);
  });

  it('when /account is asked for, then it redirects to /account/', async () => {
    const res = await h.http.get('/account');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/account/');
  });

  it('when /account/ is opened, then the HTML comes with a CSP that allows only the page’s own files and the auth service', async () => {
    const res = await h.http.get('/account/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
        "connect-src 'self' https://auth.example.test:8443; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.text).toContain('<title>Your account</title>');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('when a hashed asset is fetched, then it may be cached for good', async () => {
    const html = (await h.http.get('/account/')).text;
    const script = /src="(\/account\/assets\/[^"]+\.js)"/.exec(html)?.[1] as string;
    const res = await h.http.get(script);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('when the page asks for its config, then it gets the auth URL and the catalogue with each product’s pool', async () => {
    const res = await h.http.get('/account/config.json');
    expect(res.status).toBe(200);
    const body = res.body as { authUrl: string; products: Array<{ id: number; name: string; poolId: number }> };
    expect(body.authUrl).toBe('https://auth.example.test:8443/');
    expect(body.products).toContainEqual({ id: 24, name: 'Bulk WHOIS API', poolId: 1 });
    expect(body.products).toContainEqual({ id: 103, name: 'Reverse WHOIS API', poolId: 14 });
    expect(res.headers['content-security-policy']).toContain("connect-src 'self' https://auth.example.test:8443");
  });

  it('when the page signs in, then the session API answers without the page’s headers (it is mounted before them)', async () => {
    const res = await h.http.get('/account/session');
    expect(res.status).toBe(401);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toBeUndefined();
    expect(res.headers['x-frame-options']).toBeUndefined();
  });

  it('when a file under /account/ does not exist, then 404 in the code/messages envelope', async () => {
    const res = await h.http.get('/account/nothing-here.js');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 404, messages: 'Not found.' });
  });
});
