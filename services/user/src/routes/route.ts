import type { Request, RequestHandler, Response } from 'express';
import { AppError, handler, locals, type Logger } from '@platform/common';
import { isDependencyFailure, RETRY_AFTER_SECONDS } from '../dependency-failure';

type RouteFn = (req: Request, res: Response) => Promise<void>;

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
  return async (req, res) => {
    try {
      await fn(req, res);
    } catch (error) {
      throw toServiceError(error, locals(res).log);
    }
  };
}

/** A public endpoint: code/messages envelope, JSON or XML, WWW-Authenticate on 401. */
export function publicRoute(fn: RouteFn): RequestHandler {
  return handler('codeMessages', guarded(fn));
}

/** An admin endpoint: code/messages envelope, JSON only, no WWW-Authenticate (CONTRACT §9). */
export function adminRoute(fn: RouteFn): RequestHandler {
  return handler('codeMessages', guarded(fn), { challenge: false });
}
