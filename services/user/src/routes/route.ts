import type { RequestHandler } from 'express';
import { adminEdge, handler, publicEdge, type RouteFn } from '@platform/kernel';

// Postgres or Redis being unreachable is a 503 (retry later): the kernel's error handler maps it
// (asDependencyError) and logs it with its cause.

/** A public endpoint (`publicEdge`): code/messages envelope, JSON or XML, WWW-Authenticate on 401. */
export function publicRoute(fn: RouteFn): RequestHandler {
  return handler(publicEdge, fn);
}

/** An admin or internal endpoint (`adminEdge`): code/messages envelope, JSON only, no WWW-Authenticate (CONTRACT §9). */
export function adminRoute(fn: RouteFn): RequestHandler {
  return handler(adminEdge, fn);
}
