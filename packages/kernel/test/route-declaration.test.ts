import request from 'supertest';
import { z } from 'zod';
import { AppError, NUMERIC, Params } from '@platform/wire';
import { createLogger, Health } from '@platform/runtime';
import { createHttpApp } from '../src/http';
import { respond } from '../src/respond';
import { declareRoute, outputFormatParam } from '../src/route-declaration';
import { corsEndpoints, mountRoute } from '../src/route-mounting';
import { validateParams } from '../src/route-validation';
import { openApiDocument, operationsRoutes } from '../src/route-openapi';
import { adminEdge, oauthEdge, publicEdge } from '../src/route-edge';

const productId = z.string().regex(NUMERIC).transform(Number).optional().openapi({ description: 'Only this product.' });

const days = z.string().regex(NUMERIC).transform(Number);

const balance = declareRoute({
  methods: ['get', 'post'],
  paths: ['/balance'],
  deprecatedPaths: ['/legacy/balance'],
  edge: publicEdge,
  summary: 'Balance',
  description: 'What the account holds.',
  security: [{ credential: [] }, {}],
  params: { productId, days },
  responses: {
    200: { description: 'Balance', body: z.object({ credits: z.number().int() }).openapi('Credits') },
    401: 'Missing or bad credential',
    422: 'Bad productId',
  },
});

/** The fields of the 422 a validation throws, or the values it returns. */
function outcome(run: () => unknown): unknown {
  try {
    return { values: run() };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { code: error.code, fields: error.fields };
  }
}

describe('validateParams', () => {
  it('when the parameters are valid, then their parsed values (the body winning over the query string)', () => {
    expect(outcome(() => validateParams(balance, new Params({ productId: '7', days: '1' }, { days: '30' })))).toEqual({
      values: { productId: 7, days: 30 },
    });
  });

  it('when parameters are bad, absent or structured, then one 422 with the contract’s message for each, in declaration order', () => {
    expect(outcome(() => validateParams(balance, new Params({ productId: 'x' }, {})))).toEqual({
      code: 'invalid_params',
      fields: { productId: ['The selected product id is invalid.'], days: ['The days field is required.'] },
    });
    expect(outcome(() => validateParams(balance, new Params({ 'productId[a]': '1', days: ['1', '2'] }, {})))).toEqual({
      code: 'invalid_params',
      fields: { productId: ['The selected product id is invalid.'], days: ['The selected days is invalid.'] },
    });
  });

  it('when the declaration refuses the request as a whole, then the one 422 string (key generation)', () => {
    const route = declareRoute({ ...balance, refusal: 'request' });
    expect(outcome(() => validateParams(route, new Params({}, {})))).toEqual({ code: 'invalid_request_params', fields: undefined });
  });

  it('when a nested document is declared, then each problem is reported under its dotted name', () => {
    const route = declareRoute({
      methods: ['post'],
      paths: ['/settings'],
      edge: publicEdge,
      summary: 'Settings',
      document: z.object({ alert: z.object({ enabled: z.boolean(), threshold: z.number().int().optional() }).optional() }),
      responses: { 200: { description: 'Settings' } },
    });
    expect(outcome(() => validateParams(route, new Params({}, { alert: { threshold: 'x' } })))).toEqual({
      code: 'invalid_params',
      fields: {
        'alert.enabled': ['The alert.enabled field is required.'],
        'alert.threshold': ['The selected alert.threshold is invalid.'],
      },
    });
    expect(outcome(() => validateParams(route, new Params({}, { alert: { enabled: true } })))).toEqual({
      values: { document: { alert: { enabled: true } } },
    });
  });
});

describe('mountRoute', () => {
  function app() {
    const logger = createLogger({ service: 'declared', level: 'error' });
    const http = createHttpApp({ service: 'declared', logger, health: new Health({}), openapi: {} });
    const order = declareRoute({ ...balance, params: { days, outputFormat: outputFormatParam } });
    mountRoute(http.app, balance, (req, res, { params, input }) => {
      // The credential first (401), then the parameters (422).
      if (params.get('apiKey').kind !== 'value') throw new AppError('unauthenticated');
      respond(res, 200, { credits: 5, ...input(), method: req.method });
    });
    mountRoute(http.app, declareRoute({ ...order, paths: ['/ordered'], deprecatedPaths: [] }), (_req, res, { input }) => {
      respond(res, 200, input());
    });
    return http.finish();
  }

  it('when a declared route is called on each of its methods and paths, then it answers, validated', async () => {
    for (const path of ['/balance', '/legacy/balance']) {
      expect((await request(app()).get(path).query({ apiKey: 'k', days: '3', productId: '1' })).body).toEqual({
        credits: 5,
        days: 3,
        productId: 1,
        method: 'GET',
      });
      expect((await request(app()).post(path).send({ apiKey: 'k', days: '3' })).body).toEqual({ credits: 5, days: 3, method: 'POST' });
    }
  });

  it('when the credential and the parameters are both bad, then the 401 comes first, with the edge’s challenge', async () => {
    const reply = await request(app()).get('/balance').set('Authorization', 'Bearer x').query({ productId: 'x' });
    expect(reply.status).toBe(401);
    expect(reply.headers['www-authenticate']).toMatch(/^Bearer /);
  });

  it('when the parameters and outputFormat are bad, then one 422 in JSON names them, outputFormat first unless declared', async () => {
    const first = await request(app()).get('/balance').query({ apiKey: 'k', outputFormat: 'YAML' });
    expect(first.status).toBe(422);
    expect(first.text).toBe(
      '{"code":422,"messages":{"outputFormat":["The selected output format is invalid."],"days":["The days field is required."]}}',
    );
    const declared = await request(app()).get('/ordered').query({ outputFormat: 'YAML' });
    expect(declared.text).toBe(
      '{"code":422,"messages":{"days":["The days field is required."],"outputFormat":["The selected output format is invalid."]}}',
    );
  });

  it('when the edge answers XML and the request asks for it, then the answer is XML', async () => {
    const reply = await request(app()).get('/balance').query({ apiKey: 'k', days: '1', outputFormat: 'xml' });
    expect(reply.type).toBe('application/xml');
  });
});

describe('openApiDocument', () => {
  const document = openApiDocument({
    info: { title: 'Declared', version: '1' },
    routes: [
      balance,
      declareRoute({
        methods: ['delete'],
        paths: ['/admin/things/{id}'],
        edge: adminEdge,
        summary: 'Delete a thing',
        pathParams: { id: z.string() },
        responses: { 204: { description: 'Deleted' }, 404: 'Unknown thing' },
      }),
      declareRoute({ methods: ['post'], paths: ['/oauth/x'], edge: oauthEdge, summary: 'RFC', responses: { 400: 'Bad request' } }),
    ],
    securitySchemes: { credential: { type: 'http', scheme: 'bearer' } },
  }) as {
    openapi: string;
    paths: Record<string, Record<string, Record<string, unknown>>>;
    components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
  };

  it('when routes are declared, then each method and path is an operation, the deprecated paths marked', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(['/balance', '/legacy/balance', '/admin/things/{id}', '/oauth/x']);
    expect(Object.keys(document.paths['/balance'] ?? {})).toEqual(['get', 'post']);
    expect(document.paths['/legacy/balance']?.get?.deprecated).toBe(true);
    expect(document.paths['/balance']?.get).toMatchObject({
      summary: 'Balance (GET)',
      description: 'What the account holds.',
      security: [{ credential: [] }, {}],
    });
    expect(document.components.securitySchemes).toEqual({ credential: { type: 'http', scheme: 'bearer' } });
  });

  it('when the edge answers XML, then the parameters include outputFormat and every answer is offered in both formats', () => {
    const operation = document.paths['/balance']?.get as { parameters: unknown[]; responses: Record<string, unknown> };
    expect(operation.parameters).toEqual([
      {
        name: 'productId',
        in: 'query',
        required: false,
        description: 'Only this product.',
        schema: { type: 'string', pattern: '^[0-9]+$' },
      },
      { name: 'days', in: 'query', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
      {
        name: 'outputFormat',
        in: 'query',
        required: false,
        description: 'JSON (default) or XML, case-insensitive.',
        schema: { type: 'string', enum: ['JSON', 'XML'] },
      },
    ]);
    expect(operation.responses).toEqual({
      200: {
        description: 'Balance',
        content: {
          'application/json': { schema: { $ref: '#/components/schemas/Credits' } },
          'application/xml': { schema: { $ref: '#/components/schemas/Credits' } },
        },
      },
      401: {
        description: 'Missing or bad credential',
        content: {
          'application/json': { schema: { $ref: '#/components/schemas/CodeMessages' } },
          'application/xml': { schema: { $ref: '#/components/schemas/CodeMessages' } },
        },
        // Every refusal says why (CONTRACT §2, refusal reasons).
        headers: {
          'X-Refusal-Reason': {
            required: true,
            schema: expect.objectContaining({ type: 'string', enum: expect.arrayContaining(['key_replaced', 'account_disabled']) }),
          },
          // And a replaced key says when (an extension).
          'X-Key-Replaced-At': { required: false, schema: expect.objectContaining({ type: 'string' }) },
        },
      },
      422: expect.objectContaining({ description: 'Bad productId' }),
    });
  });

  it('when the edge answers JSON only, then no outputFormat, and errors in the edge’s envelope', () => {
    const remove = document.paths['/admin/things/{id}']?.delete as { parameters: unknown[]; responses: Record<string, unknown> };
    expect(remove.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(remove.responses).toEqual({
      204: { description: 'Deleted' },
      404: { description: 'Unknown thing', content: { 'application/json': { schema: { $ref: '#/components/schemas/CodeMessages' } } } },
    });
    expect(document.paths['/oauth/x']?.post?.responses).toEqual({
      400: { description: 'Bad request', content: { 'application/json': { schema: { $ref: '#/components/schemas/OAuthError' } } } },
    });
    expect(Object.keys(document.components.schemas).sort()).toEqual(['CodeMessages', 'Credits', 'OAuthError']);
  });

  it('when the kernel’s operations routes are documented, then the seven endpoints', () => {
    const operations = openApiDocument({ info: { title: 'Ops', version: '1' }, routes: operationsRoutes }) as { paths: object };
    expect(Object.keys(operations.paths)).toEqual([
      '/health/live',
      '/health/ready',
      '/metrics',
      '/openapi.json',
      '/version',
      '/docs',
      '/docs/assets/{file}',
    ]);
  });
});

describe('corsEndpoints', () => {
  it('when routes are declared cors, then each path (deprecated ones too) lists its methods, and no other route is named', () => {
    const route = (cors: boolean, path: string, methods: Array<'get' | 'post'>, deprecatedPaths: string[] = []) =>
      declareRoute({ cors, methods, paths: [path], deprecatedPaths, edge: publicEdge, summary: path, responses: {} });
    const endpoints = corsEndpoints([
      route(true, '/balance', ['get', 'post'], ['/legacy/balance']),
      route(true, '/settings', ['get']),
      route(true, '/settings', ['post', 'get']),
      route(false, '/admin/v1/accounts', ['post']),
    ]);
    expect(endpoints).toEqual({ '/balance': ['GET', 'POST'], '/legacy/balance': ['GET', 'POST'], '/settings': ['GET', 'POST'] });
  });
});
