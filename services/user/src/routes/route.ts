import type { Request, RequestHandler, Response } from 'express';
import { handler } from '@platform/common';

type RouteFn = (req: Request, res: Response) => Promise<void>;

// Postgres or Redis being unreachable is a 503 (retry later): the kernel's error handler maps it
// (asDependencyError) and logs it with its cause.

/** A public endpoint: code/messages envelope, JSON or XML, WWW-Authenticate on 401. */
export function publicRoute(fn: RouteFn): RequestHandler {
  return handler('codeMessages', fn);
}

/** An admin endpoint: code/messages envelope, JSON only, no WWW-Authenticate (CONTRACT §9). */
export function adminRoute(fn: RouteFn): RequestHandler {
  return handler('codeMessages', fn, { challenge: false });
}
