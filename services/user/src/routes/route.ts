import type { RequestHandler } from 'express';
import { adminEdge, AppError, handler, locals, publicEdge, type Logger, type RouteFn } from '@platform/common';
import { isDependencyFailure, RETRY_AFTER_SECONDS } from '../dependency-failure';

// Postgres or Redis being unreachable is a 503 (retry later), logged with its cause; the
// kernel's error handler logs only errors outside the closed model.
function toServiceError(error: unknown, log: Logger): unknown {
  if (error instanceof AppError) {
    if (error.code === 'unavailable') log.warn('dependency unavailable', { error: error.cause });
    return error;
  }
  if (!isDependencyFailure(error)) return error;
  log.warn('dependency unavailable', { error });
  return new AppError('unavailable', { retryAfterSeconds: RETRY_AFTER_SECONDS, cause: error });
}

function guarded(fn: RouteFn): RouteFn {
  return async (req, res, params) => {
    try {
      await fn(req, res, params);
    } catch (error) {
      throw toServiceError(error, locals(res).log);
    }
  };
}

/** A public endpoint (`publicEdge`): code/messages envelope, JSON or XML, WWW-Authenticate on 401. */
export function publicRoute(fn: RouteFn): RequestHandler {
  return handler(publicEdge, guarded(fn));
}

/** An admin or internal endpoint (`adminEdge`): code/messages envelope, JSON only, no WWW-Authenticate (CONTRACT §9). */
export function adminRoute(fn: RouteFn): RequestHandler {
  return handler(adminEdge, guarded(fn));
}
