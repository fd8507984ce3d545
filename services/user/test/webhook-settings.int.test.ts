/**
 * Balance webhook settings, test sends and the deliveries list (CONTRACT §6, §6.1), and the
 * alert e-mail address: the secret is shown once, refused targets answer the contract's 422 for
 * every address class (also after DNS), and a test send reaches a real HTTPS receiver signed per
 * Standard Webhooks.
 */
import { disableWebhook, markWebhookFailed } from '@platform/accounts';
import { startWebhookReceiver, type WebhookReceiver } from '@platform/testing';
import { startHarness, XML_DECLARATION, type Harness } from './harness';

const PATH = '/user-service/notification-settings';
const URL_INVALID = { code: 422, messages: { 'webhook.url': ['The selected webhook.url is invalid.'] } };

let strict: Harness;
/** With the address rules on, and the receiver's test network (its name resolves to it, its endpoint alone exempt). */
let receiving: Harness;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  strict = await startHarness();
  receiving = await startHarness({ webhookCa: receiver.ca, webhookNetwork: receiver.network() });
});
afterAll(async () => {
  await receiving?.stop();
  await strict?.stop();
  await receiver?.close();
});

describe('the alert e-mail address', () => {
  it('when an address is set, then alerts go there; null resets it to the account e-mail; a bad one is 422', async () => {
    const account = await strict.account({ 1: 10 });
    const set = await strict.http.post(PATH).send({ apiKey: account.apiKey, email: 'ops@example.test' });
    expect(set.status).toBe(200);
    expect(set.body.email).toBe('ops@example.test');
    expect((await strict.http.get(PATH).query({ apiKey: account.apiKey })).body.email).toBe('ops@example.test');
    for (const email of ['not-an-address', 5, 'a@b@c', '']) {
      const bad = await strict.http.post(PATH).send({ apiKey: account.apiKey, email });
      expect(bad.status).toBe(422);
      expect(bad.body).toEqual({ code: 422, messages: { email: ['The selected email is invalid.'] } });
    }
    const reset = await strict.http.post(PATH).send({ apiKey: account.apiKey, email: null });
    expect(reset.body.email).toBe(account.email);
  });
});

describe('the webhook setting', () => {
  it('when a URL is set, then the secret is in that answer only; enabling keeps it; a new URL gets a new one; null removes it', async () => {
    const account = await receiving.account({ 1: 10 });
    const set = await receiving.http.post(PATH).send({ apiKey: account.apiKey, webhook: { url: receiver.namedUrl } });
    expect(set.status).toBe(200);
    expect(set.headers['cache-control']).toBe('no-store');
    expect(set.headers['x-content-type-options']).toBe('nosniff');
    expect(set.body.webhook).toEqual({
      url: receiver.namedUrl,
      enabled: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const read = await receiving.http.get(PATH).query({ apiKey: account.apiKey });
    expect(read.body.webhook).toEqual({ url: receiver.namedUrl, enabled: true });
    const paused = await receiving.http.post(PATH).send({ apiKey: account.apiKey, webhook: { enabled: false } });
    expect(paused.body.webhook).toEqual({ url: receiver.namedUrl, enabled: false });
    const moved = await receiving.http
      .post(PATH)
      .send({ apiKey: account.apiKey, webhook: { url: `${receiver.namedUrl}/v2`, enabled: true } });
    expect(moved.body.webhook.secret).toMatch(/^whsec_/);
    expect(moved.body.webhook.secret).not.toBe(set.body.webhook.secret);
    const removed = await receiving.http.post(PATH).send({ apiKey: account.apiKey, webhook: null });
    expect(removed.body.webhook).toBeNull();
    const xml = await receiving.http.get(PATH).query({ apiKey: account.apiKey, outputFormat: 'XML' });
    expect(xml.text).toBe(
      `${XML_DECLARATION}<xml><lowBalanceAlert><enabled>true</enabled><threshold>10</threshold></lowBalanceAlert><zeroBalanceAlert><enabled>true</enabled></zeroBalanceAlert><email>${account.email}</email><webhook/></xml>`,
    );
  });

  it.each(['gone', 'failing'] as const)(
    'when the notifier disabled the webhook as %s, then the settings say why; setting it again enables it afresh, without a new secret',
    async (reason) => {
      const account = await receiving.account({ 1: 10 });
      const set = await receiving.http.post(PATH).send({ apiKey: account.apiKey, webhook: { url: receiver.namedUrl } });
      // As the notifier's dispatcher leaves it (the same functions): failing since an attempt, then disabled.
      await markWebhookFailed(receiving.pool, account.id, receiver.namedUrl, new Date(Date.now() - 6 * 86_400_000));
      expect(await disableWebhook(receiving.pool, account.id, receiver.namedUrl, reason)).toBe(true);
      expect(await disableWebhook(receiving.pool, account.id, receiver.namedUrl, reason)).toBe(false);
      const read = await receiving.http.get(PATH).query({ apiKey: account.apiKey });
      expect(read.body.webhook).toEqual({ url: receiver.namedUrl, enabled: false, disabledReason: reason });
      const xml = await receiving.http.get(PATH).query({ apiKey: account.apiKey, outputFormat: 'XML' });
      expect(xml.text).toContain(
        `<webhook><url>${receiver.namedUrl}</url><enabled>false</enabled><disabledReason>${reason}</disabledReason></webhook>`,
      );

      const again = await receiving.http.post(PATH).send({ apiKey: account.apiKey, webhook: { url: receiver.namedUrl } });
      expect(again.body.webhook).toEqual({ url: receiver.namedUrl, enabled: true });
      expect((await receiving.http.get(PATH).query({ apiKey: account.apiKey })).body.webhook).toEqual({
        url: receiver.namedUrl,
        enabled: true,
      });
      // The failures before it no longer count towards the 5 days.
      const since = await markWebhookFailed(receiving.pool, account.id, receiver.namedUrl, new Date());
      expect(Date.now() - (since as Date).getTime()).toBeLessThan(60_000);
      expect(set.body.webhook.secret).toMatch(/^whsec_/);
    },
  );

  it('when no URL is set and only enabled is sent, then 422 names webhook.url as required', async () => {
    const account = await strict.account({ 1: 10 });
    const res = await strict.http.post(PATH).send({ apiKey: account.apiKey, webhook: { enabled: true } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 422, messages: { 'webhook.url': ['The webhook.url field is required.'] } });
  });

  it.each([
    ['http (not https)', 'http://example.com/hooks'],
    ['another scheme', 'ftp://example.com/hooks'],
    ['no URL at all', 'hooks'],
    ['credentials in the URL', 'https://user:pass@example.com/hooks'],
    ['IPv4 loopback', 'https://127.0.0.1/hooks'],
    ['IPv4 loopback, another address', 'https://127.1.2.3:8443/hooks'],
    ['IPv4 private 10/8', 'https://10.0.0.5/hooks'],
    ['IPv4 private 172.16/12', 'https://172.16.4.4/hooks'],
    ['IPv4 private 192.168/16', 'https://192.168.1.1/hooks'],
    ['IPv4 link-local (cloud metadata)', 'https://169.254.169.254/latest/meta-data'],
    ['IPv4 multicast', 'https://224.0.0.1/hooks'],
    ['IPv4 unspecified', 'https://0.0.0.0/hooks'],
    ['IPv4 carrier-grade NAT', 'https://100.64.0.1/hooks'],
    ['IPv6 loopback', 'https://[::1]/hooks'],
    ['IPv6 link-local', 'https://[fe80::1]/hooks'],
    ['IPv6 unique local (private)', 'https://[fd00::1]/hooks'],
    ['IPv6 multicast', 'https://[ff02::1]/hooks'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/hooks'],
    ['a name that resolves to loopback', 'https://localhost/hooks'],
    ['a name that does not resolve', 'https://no-such-host.invalid/hooks'],
  ])('when the URL is %s, then 422 and nothing is stored (JSON and XML)', async (_class, url) => {
    const account = await strict.account({ 1: 10 });
    const res = await strict.http.post(PATH).send({ apiKey: account.apiKey, webhook: { url } });
    expect(res.status).toBe(422);
    expect(res.text).toBe(JSON.stringify(URL_INVALID));
    const xml = await strict.http.post(PATH).query({ outputFormat: 'XML' }).send({ apiKey: account.apiKey, webhook: { url } });
    expect(xml.status).toBe(422);
    expect(xml.text).toBe(
      `${XML_DECLARATION}<xml><code>422</code><messages><webhook.url><item>The selected webhook.url is invalid.</item></webhook.url></messages></xml>`,
    );
    expect((await strict.http.get(PATH).query({ apiKey: account.apiKey })).body.webhook).toBeNull();
  });

  it('when the URL is a public https address, then it is accepted', async () => {
    const account = await strict.account({ 1: 10 });
    const res = await strict.http.post(PATH).send({ apiKey: account.apiKey, webhook: { url: 'https://93.184.215.14/hooks' } });
    expect(res.status).toBe(200);
    expect(res.body.webhook).toMatchObject({ url: 'https://93.184.215.14/hooks', enabled: true });
  });
});

describe('POST /user-service/notification-settings/webhook-test and GET /user-service/webhook-deliveries', () => {
  it('when a test is sent, then the receiver verifies it with standardwebhooks and the attempt is listed', async () => {
    const account = await receiving.account({ 1: 10 });
    const set = await receiving.http.post(PATH).send({ apiKey: account.apiKey, webhook: { url: receiver.namedUrl } });
    const secret = set.body.webhook.secret as string;
    const before = receiver.received.length;
    const sent = await receiving.http.post(`${PATH}/webhook-test`).send({ apiKey: account.apiKey });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ id: expect.stringMatching(/^msg_test_/), type: 'webhook.test', delivered: true, status: 200, error: null });
    const entry = receiver.received[before];
    expect(entry?.headers['webhook-id']).toBe(sent.body.id);
    expect(receiver.verify(secret, entry!)).toEqual({
      type: 'webhook.test',
      timestamp: expect.any(String),
      data: { accountId: account.id },
    });

    receiver.answer(() => 503);
    const failed = await receiving.http.post(`${PATH}/webhook-test`).send({ apiKey: account.apiKey });
    receiver.answer(() => 200);
    expect(failed.body).toMatchObject({ delivered: false, status: 503, error: null });

    const list = await receiving.http.get('/user-service/webhook-deliveries').query({ apiKey: account.apiKey });
    expect(list.status).toBe(200);
    expect(list.headers['cache-control']).toBe('no-store');
    expect(list.headers['x-content-type-options']).toBe('nosniff');
    expect(list.body).toEqual({
      data: [
        { id: failed.body.id, type: 'webhook.test', attemptedAt: expect.any(String), status: 503, error: null, nextRetryAt: null },
        { id: sent.body.id, type: 'webhook.test', attemptedAt: expect.any(String), status: 200, error: null, nextRetryAt: null },
      ],
    });
    const xml = await receiving.http.get('/user-service/webhook-deliveries').query({ apiKey: account.apiKey, outputFormat: 'XML' });
    expect(xml.text).toContain(`<data><item><id>${failed.body.id}</id><type>webhook.test</type><attemptedAt>`);
  });

  it('when the account has no webhook, then the test send is 422 naming webhook.url', async () => {
    const account = await strict.account({ 1: 10 });
    const res = await strict.http.post(`${PATH}/webhook-test`).send({ apiKey: account.apiKey });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 422, messages: { 'webhook.url': ['The webhook.url field is required.'] } });
  });

  it('when the URL was allowed but now resolves to a refused address, then the sender refuses to connect', async () => {
    const account = await strict.account({ 1: 10 });
    await strict.pool.query(
      `INSERT INTO notification_settings (account_id, webhook_url, webhook_secret) VALUES ($1, 'https://localhost:1/hooks', 'whsec_dGVzdA==')`,
      [account.id],
    );
    const res = await strict.http.post(`${PATH}/webhook-test`).send({ apiKey: account.apiKey });
    expect(res.body).toMatchObject({ delivered: false, status: null, error: 'address not allowed' });
  });

  it('when an account sends more than 5 test webhooks a minute, then the next is 429 with Retry-After; another account is not limited', async () => {
    const withTarget = async () => {
      const account = await strict.account({ 1: 10 });
      await strict.pool.query(
        `INSERT INTO notification_settings (account_id, webhook_url, webhook_secret) VALUES ($1, 'https://localhost:1/hooks', 'whsec_dGVzdA==')`,
        [account.id],
      );
      return account;
    };
    const [busy, quiet] = [await withTarget(), await withTarget()];
    const test = (apiKey: string) => strict.http.post(`${PATH}/webhook-test`).send({ apiKey });
    for (let send = 0; send < 5; send += 1) expect((await test(busy.apiKey)).status).toBe(200);
    const limited = await test(busy.apiKey);
    expect(limited.status).toBe(429);
    expect(limited.text).toBe('{"code":429,"messages":"Too Many Requests. Try your call again later."}');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect((await test(quiet.apiKey)).status).toBe(200);
  });

  it('when the credential is missing, then 401 on both', async () => {
    expect((await strict.http.get('/user-service/webhook-deliveries')).status).toBe(401);
    expect((await strict.http.post(`${PATH}/webhook-test`)).status).toBe(401);
  });
});
