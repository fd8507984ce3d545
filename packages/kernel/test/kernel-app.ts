/**
 * The express kernel under test (`createHttpApp`, `handler`) with a few routes that exercise it, shared by the
 * kernel's tests in this folder; every test builds its own app.
 */
import { PassThrough } from 'node:stream';
import express, { type Express } from 'express';
import request from 'supertest';
import { AppError, invalidParams, requiredMessage, throwIfInvalid, type RefusalFinding } from '@platform/wire';
import { Health, type ReadinessCheck, createLogger } from '@platform/runtime';
import { createHttpApp } from '../src/http';
import { respond } from '../src/respond';
import { adminEdge, oauthEdge, productEdge, publicEdge } from '../src/route-edge';
import { checkOutputFormat, handler } from '../src/route-handler';

export const SERVICE = 'test-svc';
export const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
export const JSON_TYPE = 'application/json; charset=utf-8';
export const XML_TYPE = 'application/xml; charset=utf-8';
export const SECRET_IN_ERROR = 'at_Ab3dEf6hIj9kLm2nOp5qRs8tUvWxY';
/** When /replaced's key was replaced. */
export const REPLACED_AT = '2026-12-01T09:30:00.000Z';

interface TestApp {
  app: Express;
  health: Health;
  logs(): Array<Record<string, unknown>>;
  logText(): string;
  /** How many deferred refusal lookups (`/replaced`, `/lookup-fails`) the kernel ran. */
  refusalLookups(): number;
}

/** A service built on the kernel with a few routes that exercise it; every test gets its own. */
export function buildApp(checks: Record<string, ReadinessCheck> = {}): TestApp {
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

  // Reads parameters the way routes do: the kernel's outputFormat decision first, then echoes what it saw.
  const echo = handler(publicEdge, (_req, res, params) => {
    const errors = {};
    checkOutputFormat(res, errors);
    throwIfInvalid(errors);
    const seen = Object.fromEntries(['a', 'b', 'n'].map((name) => [name, params.get(name)]));
    respond(res, 200, seen);
  });
  http.app.get('/echo', echo);
  http.app.post('/echo', echo);
  // Routes that refuse every caller, one per edge: each edge renders the same refusal its own way.
  for (const [method, route, edge] of [
    ['post', '/protected', publicEdge],
    ['get', '/protected', publicEdge],
    ['get', '/admin/thing', adminEdge],
    ['get', '/product', productEdge],
    ['post', '/oauth/token', oauthEdge],
  ] as const)
    http.app[method](
      route,
      handler(edge, () => {
        throw new AppError('unauthenticated');
      }),
    );
  http.app.get(
    '/validate',
    handler(publicEdge, () => {
      throw invalidParams({ grantType: [requiredMessage('grantType')] });
    }),
  );
  http.app.get(
    '/limited',
    handler(publicEdge, () => {
      throw new AppError('rate_limited', { retryAfterSeconds: 30 });
    }),
  );
  http.app.get(
    '/boom',
    handler(publicEdge, () => {
      throw new Error(`database said no to ${SECRET_IN_ERROR}`);
    }),
  );
  http.app.get(
    '/boom-async',
    handler(publicEdge, async () => {
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
    handler(publicEdge, async (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('first half');
      await new Promise((resolve) => setTimeout(resolve, 10));
      throw new Error('failed mid-stream');
    }),
  );
  const router = express.Router();
  router.get(
    '/account-balance',
    handler(publicEdge, () => {
      throw new AppError('unauthenticated');
    }),
  );
  router.get(
    '/accounts/:id',
    handler(publicEdge, (req, res) => {
      respond(res, 200, { id: req.params.id });
    }),
  );
  http.app.use('/user-service', router);
  http.app.get(
    ['/user-service/legacy-balance', '/service/account-balance'],
    handler(publicEdge, (_req, res) => {
      respond(res, 200, { data: [] });
    }),
  );
  // Refusals whose precise reason costs a lookup (a replaced key), which the kernel runs.
  let refusalLookups = 0;
  const explained = (outcome: () => Promise<RefusalFinding>) =>
    handler(publicEdge, () => {
      const explain = (): Promise<RefusalFinding> => {
        refusalLookups += 1;
        return outcome();
      };
      throw new AppError('unauthenticated', { reason: 'invalid_credential', explain });
    });
  http.app.get(
    '/replaced',
    explained(() => Promise.resolve({ reason: 'key_replaced', replacedAt: new Date(REPLACED_AT) })),
  );
  http.app.get(
    '/lookup-fails',
    explained(() => Promise.reject(new Error('postgres is away'))),
  );
  const app = http.finish();

  const logText = (): string => chunks.join('');
  const logs = (): Array<Record<string, unknown>> =>
    logText()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { app, health, logs, logText, refusalLookups: () => refusalLookups };
}

/** The metric lines of one family that carry every given label. */
export function metricLines(text: string, family: string, labels: Record<string, string>): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${family}{`))
    .filter((line) => Object.entries(labels).every(([name, value]) => line.includes(`${name}="${value}"`)));
}

/** A GET to a fresh kernel app (`buildApp()`). */
export function getFresh(path: string): request.Test {
  return request(buildApp().app).get(path);
}

/** The answer's status, content type and body text, expected together. */
export function expectAnswer(response: request.Response, status: number, type: string, text: string): void {
  expect({ status: response.status, type: response.headers['content-type'], text: response.text }).toEqual({ status, type, text });
}

/** A JSON or form body POSTed to `/echo` (with `query`) of a fresh kernel app. */
export function postFresh(type: 'json' | 'form', body: string, query = ''): request.Test {
  return request(buildApp().app).post(`/echo${query}`).type(type).send(body);
}
