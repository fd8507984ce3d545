import express from 'express';
import request from 'supertest';
import { publicCorsStep } from './cors';

/** An app whose one middleware is the kernel's CORS step; every request it lets through answers 200. */
function app(): express.Express {
  const cors = publicCorsStep({ '/oauth/token': ['POST'], '/api/v2/categories': ['GET'] });
  const served = express();
  served.use((req, res, next) => {
    if (!cors(req, res)) next();
  });
  served.use((_req, res) => {
    res.status(200).end('ok');
  });
  return served;
}

describe('publicCorsStep', () => {
  it('when a request reaches a public endpoint, then it allows any origin and exposes the contract headers', async () => {
    const reply = await request(app()).post('/oauth/token').set('Origin', 'https://a.example');
    expect(reply.status).toBe(200);
    expect(reply.headers['access-control-allow-origin']).toBe('*');
    expect(reply.headers['access-control-expose-headers']).toBe('X-Request-Id,ETag,Retry-After,WWW-Authenticate');
  });

  it('when a preflight reaches a public endpoint, then the cors library answers 204 with that endpoint methods', async () => {
    const reply = await request(app())
      .options('/api/v2/categories')
      .set('Origin', 'https://a.example')
      .set('Access-Control-Request-Method', 'GET');
    expect(reply.status).toBe(204);
    expect(reply.headers['access-control-allow-methods']).toBe('GET');
    expect(reply.headers['access-control-allow-headers']).toBe('Authorization,Content-Type,If-None-Match');
  });

  it.each(['/OAuth/Token', '/oauth/token/', '/oauth/token/x'])(
    'when the path is %s, then it matches as app.use(path) would (any case, the path or below)',
    async (path) => {
      const reply = await request(app()).post(path);
      expect(reply.headers['access-control-allow-origin']).toBe('*');
    },
  );

  it.each(['/oauth/tokens', '/oauth', '/admin/v1/accounts', '/x/oauth/token'])(
    'when the path is %s, then no CORS header is sent and a preflight is not answered',
    async (path) => {
      const reply = await request(app()).post(path);
      expect(reply.headers['access-control-allow-origin']).toBeUndefined();
      const preflight = await request(app()).options(path).set('Access-Control-Request-Method', 'POST');
      expect(preflight.status).toBe(200);
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    },
  );

  it('when a public endpoint lies below another one, then its preflight names its own methods, not the enclosing one’s', async () => {
    const cors = publicCorsStep({ '/settings': ['GET', 'POST'], '/settings/webhook-test': ['POST'] });
    const served = express();
    served.use((req, res, next) => {
      if (!cors(req, res)) next();
    });
    const preflight = (path: string) =>
      request(served).options(path).set('Origin', 'https://a.example').set('Access-Control-Request-Method', 'POST');
    expect((await preflight('/settings/webhook-test')).headers['access-control-allow-methods']).toBe('POST');
    expect((await preflight('/settings')).headers['access-control-allow-methods']).toBe('GET,POST');
  });
});
