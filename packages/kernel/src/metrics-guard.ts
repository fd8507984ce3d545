import type { RequestHandler } from 'express';
import { secretDigest, secretsEqual } from '@platform/runtime';
import { AppError } from '@platform/wire';
import { kernelStateOf } from './request-state';
import type { RouteEdge } from './route-edge';

/**
 * METRICS_TOKEN: with a token, `/metrics` answers 401 (the app's envelope, JSON, no challenge)
 * unless the request carries it as a Bearer token; SHA-256 digests are compared in constant
 * time. Without one, the endpoint stays open.
 */
export function metricsGuard(token: string | undefined, edge: RouteEdge): RequestHandler {
  if (token === undefined) return (_req, _res, next) => next();
  const expected = secretDigest(token);
  return (req, res, next) => {
    kernelStateOf(res).enter(edge);
    const presented = /^Bearer +(\S+) *$/i.exec(req.get('authorization') ?? '')?.[1];
    if (presented !== undefined && secretsEqual(presented, expected)) return next();
    next(new AppError('unauthenticated', { reason: req.get('authorization') === undefined ? 'missing_credential' : 'invalid_credential' }));
  };
}
