import { PassThrough } from 'node:stream';
import express, { type Express } from 'express';
import request from 'supertest';
import { AppError, invalidParams, requiredMessage } from './errors';
import { Health, type ReadinessCheck } from './health';
import { BODY_LIMIT, createHttpApp, handler, locals } from './http';
import { createLogger } from './logger';
import { readOutputFormat } from './output-format';
import { Params } from './params';
import { sendBody } from './render';

const SERVICE = 'test-svc';
const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
const JSON_TYPE = 'application/json; charset=utf-8';
const XML_TYPE = 'application/xml; charset=utf-8';
const SECRET_IN_ERROR = 'at_Ab3dEf6hIj9kLm2nOp5qRs8tUvWxY';

interface TestApp {
  app: Express;
  health: Health;
  logs(): Array<Record<string, unknown>>;
  logText(): string;
}

/** A service built on the kernel with a few routes that exercise it; every test gets its own. */
function buildApp(checks: Record<string, ReadinessCheck> = {}): TestApp {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const logger = createLogger({ service: SERVICE, level: 'debug', stream });
  const health = new Health(checks);
  const http = createHttpApp({
    service: SERVICE,
    logger,
    health,
    openapi: { openapi: '3.1.0', info: { title: SERVICE, version: '1' }, paths: {} },
  });

  // Reads parameters the way routes do: outputFormat first, then echoes what it saw.
  const echo = handler('codeMessages', (req, res) => {
    const params = Params.from(req);
    const format = readOutputFormat(params);
    locals(res).outputFormat = format;
    const seen = Object.fromEntries(['a', 'b', 'n'].map((name) => [name, params.get(name)]));
    sendBody(res, 200, seen, format);
  });
  http.app.get('/echo', echo);
  http.app.post('/echo', echo);
  http.app.post(
    '/protected',
    handler('codeMessages', () => {
      throw new AppError('unauthenticated');
    }),
  );
  http.app.get(
    '/protected',
    handler('codeMessages', () => {
      throw new AppError('unauthenticated');
    }),
  );
  http.app.get(
    '/admin/thing',
    handler(
      'codeMessages',
      () => {
        throw new AppError('unauthenticated');
      },
      { challenge: false },
    ),
  );
  http.app.get(
    '/product',
    handler('errorMessage', () => {
      throw new AppError('unauthenticated');
    }),
  );
  http.app.post(
    '/oauth/token',
    handler('oauth', () => {
      throw new AppError('unauthenticated');
    }),
  );
  http.app.get(
    '/validate',
    handler('codeMessages', () => {
      throw invalidParams({ grantType: [requiredMessage('grantType')] });
    }),
  );
  http.app.get(
    '/limited',
    handler('codeMessages', () => {
      throw new AppError('rate_limited', { retryAfterSeconds: 30 });
    }),
  );
  http.app.get(
    '/boom',
    handler('codeMessages', () => {
      throw new Error(`database said no to ${SECRET_IN_ERROR}`);
    }),
  );
  http.app.get(
    '/boom-async',
    handler('codeMessages', async () => {
      await Promise.resolve();
      throw new TypeError('cannot read properties of undefined');
    }),
  );
  // A plain express handler (no handler() wrapper) that throws: the kernel still answers.
  http.app.get('/raw-boom', () => {
    throw new Error('raw');
  });
  http.app.get(
    '/partial',
    handler('codeMessages', async (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('first half');
      await new Promise((resolve) => setTimeout(resolve, 10));
      throw new Error('failed mid-stream');
    }),
  );
  const router = express.Router();
  router.get(
    '/account-balance',
    handler('codeMessages', () => {
      throw new AppError('unauthenticated');
    }),
  );
  router.get(
    '/accounts/:id',
    handler('codeMessages', (req, res) => {
      sendBody(res, 200, { id: req.params.id }, 'JSON');
    }),
  );
  http.app.use('/user-service', router);
  http.app.get(
    ['/user-service/legacy-balance', '/service/account-balance'],
    handler('codeMessages', (_req, res) => {
      sendBody(res, 200, { data: [] }, 'JSON');
    }),
  );
  const app = http.finish();

  const logText = (): string => chunks.join('');
  const logs = (): Array<Record<string, unknown>> =>
    logText()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { app, health, logs, logText };
}

/** The metric lines of one family that carry every given label. */
function metricLines(text: string, family: string, labels: Record<string, string>): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${family}{`))
    .filter((line) => Object.entries(labels).every(([name, value]) => line.includes(`${name}="${value}"`)));
}

describe('X-Request-Id', () => {
  it('when the client sends a sane request id, then it is echoed', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/echo').set('X-Request-Id', 'abc-123_x.y:z');
    expect(response.headers['x-request-id']).toBe('abc-123_x.y:z');
  });

  it('when the client sends none, then one is generated', async () => {
    const { app } = buildApp();
    const first = await request(app).get('/echo');
    const second = await request(app).get('/echo');
    expect(first.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['with spaces', 'abc def'],
    ['with markup', '<script>'],
    ['with quotes', 'a"b'],
  ])('when the client id is %s, then it is replaced by a generated one', async (_what, id) => {
    const { app } = buildApp();
    const response = await request(app).get('/echo').set('X-Request-Id', id);
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('when the request fails (404, 413, 400, 500), then the response still carries the id', async () => {
    const { app } = buildApp();
    const responses = await Promise.all([
      request(app).get('/nowhere').set('X-Request-Id', 'r-404'),
      request(app)
        .post('/echo')
        .set('X-Request-Id', 'r-413')
        .type('json')
        .send(`{"a":"${'x'.repeat(17_000)}"}`),
      request(app).post('/echo').set('X-Request-Id', 'r-400').type('json').send('{"a":'),
      request(app).get('/boom').set('X-Request-Id', 'r-500'),
    ]);
    expect(responses.map((response) => [response.status, response.headers['x-request-id']])).toEqual([
      [404, 'r-404'],
      [413, 'r-413'],
      [400, 'r-400'],
      [500, 'r-500'],
    ]);
  });

  it('when a request is answered, then its log line carries the request id and no query string', async () => {
    const { app, logs, logText } = buildApp();
    await request(app).get(`/echo?apiKey=${SECRET_IN_ERROR}`).set('X-Request-Id', 'log-me');
    expect(logs()).toContainEqual(
      expect.objectContaining({ message: 'request', requestId: 'log-me', method: 'GET', route: '/echo', status: '200' }),
    );
    expect(logText()).not.toContain(SECRET_IN_ERROR);
  });
});

describe('parameters through the kernel', () => {
  it('when parameters come in the query, then the route reads them', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/echo?a=1&n=7200');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expect(response.body).toEqual({ a: { kind: 'value', value: '1' }, b: { kind: 'absent' }, n: { kind: 'value', value: '7200' } });
  });

  it('when parameters come in a JSON body, then numbers read as strings and the body wins over the query', async () => {
    const { app } = buildApp();
    const response = await request(app).post('/echo?a=query&b=query').send({ a: 'body', n: 7200 });
    expect(response.body).toEqual({
      a: { kind: 'value', value: 'body' },
      b: { kind: 'value', value: 'query' },
      n: { kind: 'value', value: '7200' },
    });
  });

  it('when parameters come in a form body, then the route reads them', async () => {
    const { app } = buildApp();
    const response = await request(app).post('/echo').type('form').send('a=form&n=3600');
    expect(response.body).toEqual({ a: { kind: 'value', value: 'form' }, b: { kind: 'absent' }, n: { kind: 'value', value: '3600' } });
  });

  it('when a parameter is repeated or bracketed, then it is invalid rather than an error', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/echo?a=1&a=2&b[x]=y');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ a: { kind: 'invalid' }, b: { kind: 'invalid' } });
  });

  it('when a form body brackets a parameter, then it is invalid', async () => {
    const { app } = buildApp();
    const response = await request(app).post('/echo').type('form').send('a[b]=c');
    expect(response.body).toMatchObject({ a: { kind: 'invalid' } });
  });

  it('when outputFormat=xml (any case), then the success body is XML', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/echo?outputFormat=xml&a=1');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(XML_TYPE);
    expect(response.text).toBe(
      `${DECLARATION}<xml><a><kind>value</kind><value>1</value></a><b><kind>absent</kind></b><n><kind>absent</kind></n></xml>`,
    );
  });

  it('when outputFormat is invalid, then 422 with the contract body in JSON', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/echo?outputFormat=yaml');
    expect(response.status).toBe(422);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expect(response.text).toBe('{"code":422,"messages":{"outputFormat":["The selected output format is invalid."]}}');
  });
});

describe('body limits and syntax', () => {
  it(`when the body is over ${BODY_LIMIT} (16 KiB), then 413 with the contract body`, async () => {
    const { app } = buildApp();
    const body = JSON.stringify({ a: 'x'.repeat(16 * 1024) });
    const response = await request(app).post('/echo').type('json').send(body);
    expect(response.status).toBe(413);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expect(response.text).toBe('{"code":413,"messages":"Request body too large."}');
  });

  it('when the body is exactly 16 KiB, then it is accepted', async () => {
    const { app } = buildApp();
    const body = `{"a":"${'x'.repeat(16 * 1024 - 8)}"}`;
    expect(Buffer.byteLength(body)).toBe(16 * 1024);
    const response = await request(app).post('/echo').type('json').send(body);
    expect(response.status).toBe(200);
  });

  it('when a form body is over 16 KiB, then 413 too', async () => {
    const { app } = buildApp();
    const response = await request(app)
      .post('/echo')
      .type('form')
      .send(`a=${'x'.repeat(17 * 1024)}`);
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ code: 413, messages: 'Request body too large.' });
  });

  it('when the body is too large and XML was asked for in the query, then the 413 is XML', async () => {
    const { app } = buildApp();
    const response = await request(app)
      .post('/echo?outputFormat=XML')
      .type('json')
      .send(`{"a":"${'x'.repeat(17 * 1024)}"}`);
    expect(response.status).toBe(413);
    expect(response.headers['content-type']).toBe(XML_TYPE);
    expect(response.text).toBe(`${DECLARATION}<xml><code>413</code><messages>Request body too large.</messages></xml>`);
  });

  it.each([
    ['truncated JSON', '{"a":'],
    ['a JSON string instead of an object', '"just a string"'],
    ['single quotes', "{'a':'b'}"],
    ['a trailing comma', '{"a":"b",}'],
  ])('when the JSON body is malformed (%s), then 400 with the contract body', async (_what, body) => {
    const { app } = buildApp();
    const response = await request(app).post('/echo').type('json').send(body);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expect(response.text).toBe('{"code":400,"messages":"Malformed request body."}');
  });

  it('when the body declares a charset that cannot be read, then 400 rather than 415 or 500', async () => {
    const { app } = buildApp();
    const response = await request(app).post('/echo').set('Content-Type', 'application/json; charset=klingon').send('{}');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ code: 400, messages: 'Malformed request body.' });
  });

  it('when the body declares an unknown content encoding, then 400', async () => {
    const { app } = buildApp();
    const response = await request(app).post('/echo').set('Content-Type', 'application/json').set('Content-Encoding', 'zip-zap').send('{}');
    expect(response.status).toBe(400);
  });

  it('when a form body carries too many parameters, then 400', async () => {
    const { app } = buildApp();
    const response = await request(app)
      .post('/echo')
      .type('form')
      .send(Array.from({ length: 150 }, (_, index) => `p${index}=1`).join('&'));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ code: 400, messages: 'Malformed request body.' });
  });

  it('when the body is malformed on a route that needs a credential, then 400 comes before 401', async () => {
    const { app } = buildApp();
    const response = await request(app).post('/protected').set('Authorization', 'Bearer x').type('json').send('{"a":');
    expect(response.status).toBe(400);
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  it('when the path is not valid percent-encoding, then 400 rather than 500', async () => {
    const { app, logs } = buildApp();
    const response = await request(app).get('/user-service/accounts/%E0%A4%A');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ code: 400, messages: 'Malformed request URL.' });
    expect(logs().filter((line) => line.level === 'error')).toEqual([]);
  });

  it('when a body is not a parsed type (text/plain), then it is ignored and the query is used', async () => {
    const { app } = buildApp();
    const response = await request(app).post('/echo?a=q').set('Content-Type', 'text/plain').send('a=body');
    expect(response.body).toMatchObject({ a: { kind: 'value', value: 'q' } });
  });
});

describe('errors', () => {
  it('when no route matches, then 404 with the code/messages body', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/does-not-exist');
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expect(response.text).toBe('{"code":404,"messages":"Not found."}');
  });

  it('when no route matches and XML was asked for, then the 404 is XML', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/does-not-exist?outputFormat=xml');
    expect(response.status).toBe(404);
    expect(response.text).toBe(`${DECLARATION}<xml><code>404</code><messages>Not found.</messages></xml>`);
  });

  it('when a handler throws an unknown error, then a generic 500 without internals', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/boom');
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expect(response.text).toBe('{"code":500,"messages":"Internal server error."}');
  });

  it('when an async handler rejects, then a generic 500 too', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/boom-async');
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ code: 500, messages: 'Internal server error.' });
  });

  it('when a plain express handler throws, then a generic 500 too', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/raw-boom');
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ code: 500, messages: 'Internal server error.' });
  });

  it('when a handler fails, then the process keeps serving the next requests', async () => {
    const { app } = buildApp();
    await request(app).get('/boom');
    await request(app).get('/boom-async');
    const next = await request(app).get('/echo?a=still-here');
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ a: { kind: 'value', value: 'still-here' } });
  });

  it('when an unknown error is answered, then it is logged once with the request id and without secrets', async () => {
    const { app, logs, logText } = buildApp();
    await request(app).get('/boom').set('X-Request-Id', 'boom-1');
    const errors = logs().filter((line) => line.level === 'error');
    expect(errors).toEqual([expect.objectContaining({ message: 'unhandled error', requestId: 'boom-1', service: SERVICE })]);
    expect(JSON.stringify(errors[0]?.error)).toContain('database said no to [redacted]');
    expect(logText()).not.toContain(SECRET_IN_ERROR);
  });

  it('when a known 4xx error is answered, then nothing is logged at error level', async () => {
    const { app, logs } = buildApp();
    await request(app).get('/protected');
    expect(logs().filter((line) => line.level === 'error')).toEqual([]);
  });

  it('when a handler fails after part of the body was sent, then the connection is cut rather than left hanging', async () => {
    const { app } = buildApp();
    await expect(request(app).get('/partial')).rejects.toThrow();
    const next = await request(app).get('/echo');
    expect(next.status).toBe(200);
  });

  it('when an error is answered and XML was asked for, then the code/messages body is XML', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/protected?outputFormat=XML');
    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toBe(XML_TYPE);
    expect(response.text).toBe(
      `${DECLARATION}<xml><code>401</code><messages>Access restricted. Check credits balance or enter the correct API key.</messages></xml>`,
    );
  });

  it('when validation fails in XML, then messages hold an <item> per message', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/validate?outputFormat=xml');
    expect(response.status).toBe(422);
    expect(response.text).toBe(
      `${DECLARATION}<xml><code>422</code><messages><grantType><item>The grant type field is required.</item></grantType></messages></xml>`,
    );
  });

  it('when outputFormat is invalid on a failing route, then the error is rendered as JSON', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/protected?outputFormat=yaml');
    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
  });

  it('when a 500 is answered and XML was asked for, then the generic 500 is XML', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/boom?outputFormat=xml');
    expect(response.status).toBe(500);
    expect(response.text).toBe(`${DECLARATION}<xml><code>500</code><messages>Internal server error.</messages></xml>`);
  });

  it('when a route uses the ErrorMessage envelope, then JSON and XML follow it', async () => {
    const { app } = buildApp();
    const json = await request(app).get('/product');
    expect(json.status).toBe(401);
    expect(json.text).toBe(
      '{"ErrorMessage":{"errorCode":"AUTHENTICATE_01","msg":"Access restricted. Check credits balance or enter the correct API key."}}',
    );
    const xml = await request(app).get('/product?outputFormat=xml');
    expect(xml.headers['content-type']).toBe(XML_TYPE);
    expect(xml.text).toBe(
      `${DECLARATION}<ErrorMessage><errorCode>AUTHENTICATE_01</errorCode><msg>Access restricted. Check credits balance or enter the correct API key.</msg></ErrorMessage>`,
    );
  });

  it('when a route uses the OAuth envelope, then errors are JSON even if XML was asked for', async () => {
    const { app } = buildApp();
    const response = await request(app).post('/oauth/token?outputFormat=xml').type('form').send('grant_type=client_credentials');
    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expect(response.body).toEqual({
      error: 'invalid_client',
      error_description: 'Access restricted. Check credits balance or enter the correct API key.',
    });
  });

  it('when rate limited, then 429 with Retry-After', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/limited');
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('30');
    expect(response.body).toEqual({ code: 429, messages: 'Too Many Requests. Try your call again later.' });
  });
});

describe('WWW-Authenticate on 401', () => {
  it('when Bearer was sent, then Bearer realm="<service>", error="invalid_token"', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/protected').set('Authorization', 'Bearer tk_nope');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe(`Bearer realm="${SERVICE}", error="invalid_token"`);
  });

  it('when the scheme is written in lower case, then it is still recognised', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/protected').set('Authorization', 'bearer tk_nope');
    expect(response.headers['www-authenticate']).toBe(`Bearer realm="${SERVICE}", error="invalid_token"`);
  });

  it('when HTTP Basic was sent, then Basic realm="auth"', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/protected').auth('1', 'at_x');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Basic realm="auth"');
  });

  it('when Basic was sent to the OAuth envelope, then Basic realm="auth" as RFC 6749 asks', async () => {
    const { app } = buildApp();
    const response = await request(app).post('/oauth/token').auth('1', 'at_x').type('form').send('grant_type=client_credentials');
    expect(response.headers['www-authenticate']).toBe('Basic realm="auth"');
  });

  it('when no Authorization was sent, then no challenge', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/protected');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  it('when the route turned challenges off (admin, internal), then no challenge', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/admin/thing').set('Authorization', 'Bearer wrong-admin-token');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  it('when the answer is not a 401, then no challenge even with Bearer', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/validate').set('Authorization', 'Bearer tk_nope');
    expect(response.status).toBe(422);
    expect(response.headers['www-authenticate']).toBeUndefined();
  });
});

describe('health', () => {
  it('when /health/live is asked, then 200 {"status":"ok"} without touching dependencies', async () => {
    const check = jest.fn(() => Promise.reject(new Error('down')));
    const { app } = buildApp({ redis: check });
    const response = await request(app).get('/health/live');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expect(response.body).toEqual({ status: 'ok' });
    expect(check).not.toHaveBeenCalled();
  });

  it('when every check passes, then /health/ready is 200 {"status":"ready"}', async () => {
    const { app } = buildApp({ postgres: () => Promise.resolve() });
    const response = await request(app).get('/health/ready');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ready' });
  });

  it('when a check fails, then /health/ready is 503 with each check state', async () => {
    const { app } = buildApp({ postgres: () => Promise.resolve(), redis: () => Promise.reject(new Error('ECONNREFUSED')) });
    const response = await request(app).get('/health/ready');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: 'not ready', checks: { postgres: 'ok', redis: 'failed: ECONNREFUSED' } });
  });

  it('when a check throws synchronously, then /health/ready is 503, not 500', async () => {
    const { app } = buildApp({
      broken: () => {
        throw new Error('sync');
      },
    });
    const response = await request(app).get('/health/ready');
    expect(response.status).toBe(503);
  });

  it('when the service is draining, then /health/ready is 503 while /health/live stays 200', async () => {
    const { app, health } = buildApp({ postgres: () => Promise.resolve() });
    health.markDraining();
    const ready = await request(app).get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'draining', checks: { postgres: 'ok' } });
    expect((await request(app).get('/health/live')).status).toBe(200);
  });
});

describe('metrics', () => {
  it('when requests were answered, then /metrics counts them by method, route template and status', async () => {
    const { app } = buildApp();
    await request(app).get('/echo');
    await request(app).get('/echo');
    await request(app).get('/user-service/accounts/42');
    const response = await request(app).get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(metricLines(response.text, 'http_requests_total', { method: 'GET', route: '/echo', status: '200' })).toEqual([
      expect.stringMatching(/ 2$/),
    ]);
    expect(metricLines(response.text, 'http_requests_total', { route: '/user-service/accounts/:id', status: '200' })).toHaveLength(1);
    expect(response.text).not.toContain('/user-service/accounts/42');
  });

  it('when requests were answered, then the duration histogram has the same labels', async () => {
    const { app } = buildApp();
    await request(app).post('/echo').send({ a: '1' });
    const response = await request(app).get('/metrics');
    expect(response.text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(metricLines(response.text, 'http_request_duration_seconds_count', { method: 'POST', route: '/echo', status: '200' })).toEqual([
      expect.stringMatching(/ 1$/),
    ]);
    expect(
      metricLines(response.text, 'http_request_duration_seconds_bucket', { method: 'POST', route: '/echo', status: '200', le: '+Inf' }),
    ).toHaveLength(1);
  });

  it('when a route in a mounted router fails, then the label is still the full template', async () => {
    const { app } = buildApp();
    await request(app).get('/user-service/account-balance');
    const response = await request(app).get('/metrics');
    expect(
      metricLines(response.text, 'http_requests_total', { method: 'GET', route: '/user-service/account-balance', status: '401' }),
    ).toHaveLength(1);
  });

  it('when a route is served at two paths, then the label is the template that matched', async () => {
    const { app } = buildApp();
    await request(app).get('/service/account-balance');
    await request(app).get('/user-service/legacy-balance');
    const response = await request(app).get('/metrics');
    expect(metricLines(response.text, 'http_requests_total', { route: '/service/account-balance', status: '200' })).toHaveLength(1);
    expect(metricLines(response.text, 'http_requests_total', { route: '/user-service/legacy-balance', status: '200' })).toHaveLength(1);
  });

  it('when no route matched, then the label is "unmatched" (not the raw path)', async () => {
    const { app } = buildApp();
    await request(app).get('/random/garbage/path');
    const response = await request(app).get('/metrics');
    expect(metricLines(response.text, 'http_requests_total', { route: 'unmatched', status: '404' })).toHaveLength(1);
    expect(response.text).not.toContain('/random/garbage/path');
  });

  it('when errors were answered, then their status is the numeric code', async () => {
    const { app } = buildApp();
    await request(app).get('/boom');
    await request(app).post('/echo').type('json').send('{');
    const response = await request(app).get('/metrics');
    expect(metricLines(response.text, 'http_requests_total', { route: '/boom', status: '500' })).toHaveLength(1);
    expect(metricLines(response.text, 'http_requests_total', { method: 'POST', status: '400' })).toHaveLength(1);
  });

  it('when two apps live in one process, then their metrics do not mix', async () => {
    const first = buildApp();
    const second = buildApp();
    await request(first.app).get('/echo');
    const response = await request(second.app).get('/metrics');
    expect(metricLines(response.text, 'http_requests_total', { route: '/echo' })).toEqual([]);
  });
});

describe('openapi', () => {
  it('when /openapi.json is asked, then the service document is served as JSON', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expect(response.body).toEqual({ openapi: '3.1.0', info: { title: SERVICE, version: '1' }, paths: {} });
  });
});

describe('response headers', () => {
  it('when answering, then no X-Powered-By and no automatic ETag', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/echo');
    expect(response.headers['x-powered-by']).toBeUndefined();
    expect(response.headers.etag).toBeUndefined();
  });
});
