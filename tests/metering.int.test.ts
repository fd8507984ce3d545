/**
 * Metering end to end: a product app built with @platform/product-gateway → the user service's
 * internal usage API (real Postgres, real Redis) → outbox → relay → RabbitMQ → notifier → SMTP.
 * The test has its own database (a relay publishes every unpublished row of its outbox), its
 * own exchange and queues, and reaches RabbitMQ from the user service through a TCP proxy so
 * that it can cut it.
 */
import type { Express } from 'express';
import request from 'supertest';
import type { ProductGateway } from '@platform/product-gateway';
import { captureLogs, eventually, startTcpProxy, testServers, uniqueId, type TcpProxy } from '@platform/testing';
import { ACCESS_RESTRICTED, ADMIN_TOKEN, SERVICE_JWT_SECRET } from '@platform/user/testing';
import { startAlerting, type Alerting } from './support/alerting';
import { productApp } from './support/product-app';

const PATH = '/whoisserver/WhoisService';
const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

/** Every gateway the tests made, closed at the end (each keeps connections alive). */
const gateways: ProductGateway[] = [];

/** A product of the domain-registration-lookup family, as a product team would build it. */
function product(userUrl: string, productId: number): Express {
  const { app, gateway } = productApp({
    userUrl,
    serviceJwtSecret: SERVICE_JWT_SECRET,
    productId,
    path: PATH,
    answer: (call) => ({ WhoisRecord: { domainName: call.domainName, creditsLeft: call.credits } }),
  });
  gateways.push(gateway);
  return app;
}

describe('metering: product calls debit the pool, balance events reach the notifier, alerts are mailed once', () => {
  let alerting: Alerting;
  let proxy: TcpProxy;
  let user: Alerting['user'];
  let whois: Express;
  let bulkWhois: Express;

  /** The user service's log: the relay's failed publishes show there. */
  const userLogs = captureLogs('user');

  beforeAll(async () => {
    // The user service reaches RabbitMQ through the proxy (the test cuts it), the notifier straight.
    proxy = await startTcpProxy(Number(new URL(testServers.amqpUrl).port || 5672));
    alerting = await startAlerting({
      name: 'metering',
      userAmqpUrl: proxy.url(testServers.amqpUrl),
      userLogger: userLogs.logger,
      notifierEnv: {
        MAIL_FROM: 'Account alerts <alerts@example.test>',
        NOTIFIER_MAIL_RETRY_INITIAL_MS: '100',
        NOTIFIER_MAIL_RETRY_MAX_MS: '500',
      },
    });
    user = alerting.user;
    whois = product(user.service.url, 1);
    bulkWhois = product(user.service.url, 24);
  });

  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    await alerting?.stop();
    await proxy?.close();
  });

  /** An account created through the admin API (its opening top-up is a balance change too). */
  async function anAccount(credits: number): Promise<{ id: number; email: string; apiKey: string; token: string }> {
    const email = `${uniqueId('metering')}@example.test`;
    const created = await user.http
      .post('/admin/v1/accounts')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ email, credits: { 1: credits } });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    return { id, email, apiKey: created.body.apiKey as string, token: await user.token({ apiKey: created.body.apiKey as string }) };
  }

  const lookupPool = async (apiKey: string): Promise<number> => {
    const res = await user.http.get('/user-service/account-balance').query({ apiKey, productId: '1' });
    return res.body.data[0].credits as number;
  };
  const mailsTo = (email: string) => alerting.mailsTo(email);
  /** Every balance change of the account is published, handled by the notifier, and every e-mail it queued is sent. */
  const settled = (accountId: number) => alerting.settled([accountId]);

  it('when a product app is called by GET with a key and by POST with a token, then each call debits one credit, and a call to product 24 shows on product 1', async () => {
    const account = await anAccount(20);
    const byKey = await request(whois).get(PATH).query({ domainName: 'Example.COM', apiKey: account.apiKey });
    expect(byKey.status).toBe(200);
    expect(byKey.body).toEqual({ WhoisRecord: { domainName: 'example.com', creditsLeft: 19 } });
    const byToken = await request(whois).post(PATH).set('Authorization', `Bearer ${account.token}`).send({ domainName: 'example.org' });
    expect(byToken.body).toEqual({ WhoisRecord: { domainName: 'example.org', creditsLeft: 18 } });
    const tokenInBody = await request(whois).post(PATH).send({ domainName: 'example.net', apiKey: account.token, outputFormat: 'XML' });
    expect(tokenInBody.text).toBe(
      `${XML_DECLARATION}<xml><WhoisRecord><domainName>example.net</domainName><creditsLeft>17</creditsLeft></WhoisRecord></xml>`,
    );
    const bulk = await request(bulkWhois).get(PATH).query({ domainName: 'example.com', apiKey: account.apiKey });
    expect(bulk.body).toEqual({ WhoisRecord: { domainName: 'example.com', creditsLeft: 16 } });
    expect(await lookupPool(account.apiKey)).toBe(16);
    const ledger = await user.pool.query("SELECT count(*) AS n FROM credit_ledger WHERE account_id = $1 AND cause = 'usage'", [account.id]);
    expect(Number(ledger.rows[0].n)).toBe(4);
  });

  it('when 12 credits are used up, with RabbitMQ unreachable for the user service while the pool crosses 10 and 0, then exactly one low and one zero alert arrive after it returns, and the next call is 403 in JSON and XML', async () => {
    const account = await anAccount(12);
    const call = (index: number) =>
      index % 2 === 0
        ? request(index % 3 === 0 ? bulkWhois : whois)
            .get(PATH)
            .query({ domainName: `d${index}.example`, apiKey: account.apiKey })
        : request(whois)
            .post(PATH)
            .set('Authorization', `Bearer ${account.token}`)
            .send({ domainName: `d${index}.example` });

    // 12 → 10: at the threshold, no alert yet.
    for (const index of [0, 1]) expect((await call(index)).status).toBe(200);
    await settled(account.id);
    expect(mailsTo(account.email)).toHaveLength(0);

    const offset = userLogs.text().length;
    proxy.cut();
    try {
      await eventually(async () => ((await user.http.get('/health/ready')).body.checks?.rabbitmq !== 'ok' ? true : undefined));
      // 10 → 0 while the user service cannot reach RabbitMQ: the calls are still served.
      for (let index = 2; index < 12; index += 1) {
        const res = await call(index);
        expect(res.status).toBe(200);
        expect(res.body.WhoisRecord.creditsLeft).toBe(11 - index);
      }
      // The relay tried those events and could not publish them (awaited, not slept on): no mail yet.
      await eventually(
        () => (userLogs.text().slice(offset).includes('outbox publish failed, will retry') ? true : undefined),
        10_000,
        'a failed publish',
      );
      expect(mailsTo(account.email)).toHaveLength(0);
      const waiting = await user.pool.query(
        "SELECT count(*) AS n FROM outbox_event_list WHERE payload->>'accountId' = $1 AND published_at IS NULL",
        [String(account.id)],
      );
      expect(Number(waiting.rows[0].n)).toBe(10);
    } finally {
      proxy.restore();
    }

    await settled(account.id);
    const subjects = mailsTo(account.email).map((mail) => mail.subject);
    expect(subjects.filter((subject) => subject?.startsWith('Low balance alert'))).toEqual([
      'Low balance alert: WHOIS API has 9 credits left',
    ]);
    expect(subjects.filter((subject) => subject?.startsWith('Zero balance alert'))).toEqual([
      'Zero balance alert: WHOIS API has no credits left',
    ]);
    expect(subjects).toHaveLength(2);

    const json = await request(whois).get(PATH).query({ domainName: 'example.com', apiKey: account.apiKey });
    expect(json.status).toBe(403);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.body).toEqual({ ErrorMessage: { errorCode: 'AUTHENTICATE_02', msg: ACCESS_RESTRICTED } });
    const xml = await request(bulkWhois)
      .post(PATH)
      .set('Authorization', `Bearer ${account.token}`)
      .send({ domainName: 'example.com', outputFormat: 'XML' });
    expect(xml.status).toBe(403);
    expect(xml.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(xml.text).toBe(
      `${XML_DECLARATION}<ErrorMessage><errorCode>AUTHENTICATE_02</errorCode><msg>${ACCESS_RESTRICTED}</msg></ErrorMessage>`,
    );
    expect(await lookupPool(account.apiKey)).toBe(0);

    // Refused calls change nothing: no event, no further e-mail.
    await settled(account.id);
    expect(mailsTo(account.email)).toHaveLength(2);
  });

  it('when the credential is unknown, then 401 AUTHENTICATE_01 in the ErrorMessage envelope, in JSON and in XML', async () => {
    const json = await request(whois)
      .get(PATH)
      .query({ domainName: 'example.com', apiKey: `at_${'x'.repeat(29)}` });
    expect(json.status).toBe(401);
    expect(json.body).toEqual({ ErrorMessage: { errorCode: 'AUTHENTICATE_01', msg: ACCESS_RESTRICTED } });
    const xml = await request(whois)
      .post(PATH)
      .send({ domainName: 'example.com', apiKey: `at_${'x'.repeat(29)}`, outputFormat: 'xml' });
    expect(xml.status).toBe(401);
    expect(xml.text).toBe(
      `${XML_DECLARATION}<ErrorMessage><errorCode>AUTHENTICATE_01</errorCode><msg>${ACCESS_RESTRICTED}</msg></ErrorMessage>`,
    );
  });
});
