/** The kernel on the way in: request ids, parameters, body limits and syntax, response headers. */
import request from 'supertest';
import { BODY_LIMIT } from '../src/http';
import { DECLARATION, JSON_TYPE, XML_TYPE, SECRET_IN_ERROR, buildApp, expectAnswer, getFresh, postFresh } from './kernel-app';

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
    const response = await getFresh('/echo?a=1&n=7200');
    expect({ status: response.status, type: response.headers['content-type'] }).toEqual({ status: 200, type: JSON_TYPE });
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
    expectAnswer(
      await getFresh('/echo?outputFormat=yaml'),
      422,
      JSON_TYPE,
      '{"code":422,"messages":{"outputFormat":["The selected output format is invalid."]}}',
    );
  });
});

describe('body limits and syntax', () => {
  it(`when the body is over ${BODY_LIMIT} (16 KiB), then 413 with the contract body`, async () => {
    const body = JSON.stringify({ a: 'x'.repeat(16 * 1024) });
    expectAnswer(await postFresh('json', body), 413, JSON_TYPE, '{"code":413,"messages":"Request body too large."}');
  });

  it('when the body is exactly 16 KiB, then it is accepted', async () => {
    const body = `{"a":"${'x'.repeat(16 * 1024 - 8)}"}`;
    expect(Buffer.byteLength(body)).toBe(16 * 1024);
    const response = await postFresh('json', body);
    expect(response.status).toBe(200);
  });

  it('when a form body is over 16 KiB, then 413 too', async () => {
    const response = await postFresh('form', `a=${'x'.repeat(17 * 1024)}`);
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ code: 413, messages: 'Request body too large.' });
  });

  it('when the body is too large and XML was asked for in the query, then the 413 is XML', async () => {
    const body = `{"a":"${'x'.repeat(17 * 1024)}"}`;
    const xml = `${DECLARATION}<xml><code>413</code><messages>Request body too large.</messages></xml>`;
    expectAnswer(await postFresh('json', body, '?outputFormat=XML'), 413, XML_TYPE, xml);
  });

  it.each([
    ['truncated JSON', '{"a":'],
    ['a JSON string instead of an object', '"just a string"'],
    ['single quotes', "{'a':'b'}"],
    ['a trailing comma', '{"a":"b",}'],
  ])('when the JSON body is malformed (%s), then 400 with the contract body', async (_what, body) => {
    expectAnswer(await postFresh('json', body), 400, JSON_TYPE, '{"code":400,"messages":"Malformed request body."}');
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
    const response = await postFresh('form', Array.from({ length: 150 }, (_, index) => `p${index}=1`).join('&'));
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

describe('response headers', () => {
  it('when answering, then no X-Powered-By and no automatic ETag', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/echo');
    expect(response.headers['x-powered-by']).toBeUndefined();
    expect(response.headers.etag).toBeUndefined();
  });
});
