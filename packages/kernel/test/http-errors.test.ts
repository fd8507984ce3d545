/** The kernel on the way out when something fails: the error envelopes (JSON and XML), 5xx without internals, WWW-Authenticate on 401. */
import request from 'supertest';
import { SERVICE, DECLARATION, JSON_TYPE, XML_TYPE, SECRET_IN_ERROR, buildApp, expectAnswer, getFresh } from './kernel-app';

describe('errors', () => {
  // What a fresh app answers to a GET: its status, and (first table) its content type, and its body.
  it.each<[string, string, number, string, string]>([
    [
      'when no route matches, then 404 with the code/messages body',
      '/does-not-exist',
      404,
      JSON_TYPE,
      '{"code":404,"messages":"Not found."}',
    ],
    [
      'when a handler throws an unknown error, then a generic 500 without internals',
      '/boom',
      500,
      JSON_TYPE,
      '{"code":500,"messages":"Internal server error."}',
    ],
    [
      'when an error is answered and XML was asked for, then the code/messages body is XML',
      '/protected?outputFormat=XML',
      401,
      XML_TYPE,
      `${DECLARATION}<xml><code>401</code><messages>Access restricted. Check credits balance or enter the correct API key.</messages></xml>`,
    ],
  ])('%s', async (_case, path, status, type, text) => {
    expectAnswer(await getFresh(path), status, type, text);
  });

  it.each<[string, string, number, string]>([
    [
      'when no route matches and XML was asked for, then the 404 is XML',
      '/does-not-exist?outputFormat=xml',
      404,
      `${DECLARATION}<xml><code>404</code><messages>Not found.</messages></xml>`,
    ],
    [
      'when validation fails in XML, then messages hold an <item> per message',
      '/validate?outputFormat=xml',
      422,
      `${DECLARATION}<xml><code>422</code><messages><grantType><item>The grant type field is required.</item></grantType></messages></xml>`,
    ],
    [
      'when a 500 is answered and XML was asked for, then the generic 500 is XML',
      '/boom?outputFormat=xml',
      500,
      `${DECLARATION}<xml><code>500</code><messages>Internal server error.</messages></xml>`,
    ],
  ])('%s', async (_case, path, status, text) => {
    const response = await getFresh(path);
    expect({ status: response.status, text: response.text }).toEqual({ status, text });
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

  it('when outputFormat is invalid on a failing route, then the error is rendered as JSON', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/protected?outputFormat=yaml');
    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
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
    expect(response.headers['www-authenticate']).toBe(
      `Bearer realm="${SERVICE}", error="invalid_token", error_description="invalid_credential"`,
    );
  });

  it('when the scheme is written in lower case, then it is still recognised', async () => {
    const { app } = buildApp();
    const response = await request(app).get('/protected').set('Authorization', 'bearer tk_nope');
    expect(response.headers['www-authenticate']).toBe(
      `Bearer realm="${SERVICE}", error="invalid_token", error_description="invalid_credential"`,
    );
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
