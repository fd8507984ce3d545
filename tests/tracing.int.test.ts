/**
 * One trace across the whole path (issue 17): a product app's call through
 * @platform/product-gateway debits the last credit above the low-balance threshold; the usage
 * API, the outbox row, the relay, RabbitMQ, the notifier and its SMTP send all show up in one
 * trace, recorded by the SDK's in-memory exporter. The services run in a child process
 * (tests/tracing/traced-services.ts) because the instrumentations patch modules as Node loads
 * them, which jest's module sandbox bypasses. Real Postgres, Redis, RabbitMQ and SMTP capture.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import request from 'supertest';
import {
  createPrivateDatabase,
  deleteKeys,
  deleteTopology,
  eventually,
  silentLogger,
  sourceNodeArgs,
  startSmtpCapture,
  testServers,
  uniqueId,
  type PrivateDatabase,
  type SmtpCapture,
} from '@platform/testing';
import { closeRedis, connectRedis } from '@platform/credentials';
import { PRODUCT_PATH, type SpanRecord } from './tracing/traced-platform';

const ADMIN_TOKEN = 'tracing-test-admin-token-0123456789';
const SERVICE_JWT_SECRET = 'tracing-test-service-jwt-secret-0123456789';
const SPAN_KIND = { INTERNAL: 0, SERVER: 1, CLIENT: 2, PRODUCER: 3, CONSUMER: 4 };

interface Reply {
  ready?: { user: string; product: string };
  spans?: SpanRecord[];
}

describe('tracing: one debit that crosses the low threshold is one trace from the product app to the SMTP send', () => {
  const exchange = uniqueId('test.tracing.');
  const queue = `${exchange}.balance-changed`;
  const keyPrefix = `test:tracing:${uniqueId()}:`;
  let db: PrivateDatabase;
  let smtp: SmtpCapture;
  let child: ChildProcess;
  let urls: { user: string; product: string };
  const logLines: Array<Record<string, unknown>> = [];
  let output = '';

  const ask = <K extends keyof Reply>(key: K, message?: string): Promise<NonNullable<Reply[K]>> =>
    new Promise((resolve, reject) => {
      const onMessage = (reply: Reply): void => {
        if (reply[key] === undefined) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(reply[key]);
      };
      const onExit = (): void => reject(new Error(`the traced process exited:\n${output}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
      if (message !== undefined) child.send(message);
    });

  beforeAll(async () => {
    db = await createPrivateDatabase('tracing');
    smtp = await startSmtpCapture();
    child = fork(path.join(__dirname, 'tracing/traced-services.ts'), [], {
      execArgv: sourceNodeArgs,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: db.url,
        REDIS_URL: testServers.redisUrl,
        REDIS_KEY_PREFIX: keyPrefix,
        AMQP_URL: testServers.amqpUrl,
        SMTP_URL: smtp.url,
        ADMIN_TOKEN,
        SERVICE_JWT_SECRET,
        // The product app calls the user service from this machine: a trusted peer, so one trace.
        TRACE_TRUST_INCOMING: '127.0.0.1',
        USER_PORT: '0',
        NOTIFIER_PORT: '0',
        BALANCE_EXCHANGE: exchange,
        NOTIFIER_QUEUE: queue,
        NOTIFIER_DEAD_LETTER_QUEUE: `${queue}.dead`,
        OUTBOX_POLL_MS: '100',
        NOTIFIER_MAIL_POLL_MS: '100',
      },
    });
    let pending = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        output += `${line}\n`;
        if (line.startsWith('{')) logLines.push(JSON.parse(line) as Record<string, unknown>);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    urls = await ask('ready');
  }, 120_000);

  afterAll(async () => {
    if (child?.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('stop');
      await exited;
    }
    await smtp?.close();
    await deleteTopology(testServers.amqpUrl, { queues: [queue, `${queue}.dead`], exchanges: [exchange, `${exchange}.dlx`] });
    const redis = await connectRedis(testServers.redisUrl, silentLogger());
    await deleteKeys(redis, keyPrefix);
    await closeRedis(redis);
    await db?.drop();
  });

  it('when the call debits the pool from 10 to 9, then the usage API, outbox, relay, notifier and SMTP send share its trace, and the logs carry its ids', async () => {
    const email = `${uniqueId('traced')}@example.test`;
    const created = await request(urls.user)
      .post('/admin/v1/accounts')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ email, credits: { 1: 10 } });
    expect(created.status).toBe(201);
    const apiKey = created.body.apiKey as string;

    const call = await request(urls.product).get(PRODUCT_PATH).query({ apiKey, domainName: 'example.com' });
    expect(call.status).toBe(200);
    await eventually(
      () => (smtp.messages.some((mail) => JSON.stringify(mail.to ?? null).includes(email)) ? true : undefined),
      30_000,
      'the alert',
    );

    // The send's span ends just after the SMTP server accepted the message.
    const spans = await eventually(
      async () => {
        const all = await ask('spans', 'spans');
        return all.some((span) => span.name === 'smtp send') ? all : undefined;
      },
      10_000,
      'the smtp send span',
    );
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const ancestors = (span: SpanRecord): SpanRecord[] => {
      const chain: SpanRecord[] = [];
      for (let parent = byId.get(span.parentSpanId ?? ''); parent; parent = byId.get(parent.parentSpanId ?? '')) chain.push(parent);
      return chain;
    };

    const entry = spans.find((span) => span.kind === SPAN_KIND.SERVER && span.attributes['http.route'] === PRODUCT_PATH);
    expect(entry).toBeDefined();
    const traceId = (entry as SpanRecord).traceId;
    const trace = spans.filter((span) => span.traceId === traceId);
    const one = (predicate: (span: SpanRecord) => boolean, what: string): SpanRecord => {
      const found = trace.filter(predicate);
      expect({ what, count: found.length }).toEqual({ what, count: 1 });
      return found[0] as SpanRecord;
    };

    const usageCall = one((span) => span.kind === SPAN_KIND.CLIENT && span.scope.includes('undici'), 'the gateway’s call to the usage API');
    const usageApi = one(
      // The product gateway coalesces its debits through the batch route (CONTRACT §7.1).
      (span) => span.kind === SPAN_KIND.SERVER && span.attributes['http.route'] === '/internal/v1/usage/batch',
      'the usage API’s server span',
    );
    const outboxWrite = one(
      (span) =>
        span.scope.includes('pg') &&
        // The credit write path's one statement, which writes the outbox row (store/credit-writes.ts).
        String(span.attributes['db.statement'] ?? span.attributes['db.query.text']).includes('write_credit_changes('),
      'the batch write with the outbox row',
    );
    const publish = one((span) => span.name === 'balance.changed publish' && span.kind === SPAN_KIND.PRODUCER, 'the relay’s publish');
    const handling = one((span) => span.name === 'balance.changed process' && span.kind === SPAN_KIND.CONSUMER, 'the notifier’s handling');
    const send = one((span) => span.name === 'smtp send', 'the SMTP send');

    expect(ancestors(usageApi)).toEqual(expect.arrayContaining([usageCall, entry]));
    expect(ancestors(outboxWrite)).toContain(usageApi);
    expect(ancestors(publish)).toContain(usageApi);
    expect(ancestors(handling)).toContain(publish);
    expect(ancestors(send)).toContain(handling);
    expect(trace.some((span) => span.scope.includes('amqplib'))).toBe(true);

    // The key went in the query string: no span records it (url.query is redacted).
    expect(entry?.attributes['url.query']).toBe('apiKey=REDACTED&domainName=example.com');
    expect(JSON.stringify(spans)).not.toContain(apiKey);

    // The usage API's log line carries the trace's ids beside its request id.
    const usageLine = logLines.find((line) => line.message === 'usage batch' && line.trace_id === traceId);
    expect(usageLine).toMatchObject({ service: 'user', trace_id: traceId, span_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(usageLine?.requestId).toEqual(expect.any(String));
    const sentLine = logLines.find((line) => line.message === 'alert e-mail sent' && line.trace_id === traceId);
    expect(sentLine).toMatchObject({ service: 'notifier', span_id: send.spanId });
  }, 90_000);
});
