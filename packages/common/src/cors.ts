import cors from 'cors';
import type { RequestHandler } from 'express';

/** Paths of a service's public endpoints, each with the methods browsers may call it with. */
export type PublicEndpoints = Readonly<Record<string, readonly string[]>>;

/** Request headers a browser may send cross-origin to a public endpoint (CONTRACT §2). */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'If-None-Match'];
/** Response headers a cross-origin script may read. */
const EXPOSED_HEADERS = ['X-Request-Id', 'ETag', 'Retry-After', 'WWW-Authenticate'];

/**
 * CORS for the public endpoints (CONTRACT §2): any origin (the real service answers
 * `Access-Control-Allow-Origin: *`; credentials travel in headers, not cookies), the exposed
 * headers above, and a 204 preflight naming the endpoint's methods. Admin, internal, health and
 * metrics endpoints are never listed, so they send no CORS headers.
 */
export function publicCors(methods: readonly string[]): RequestHandler {
  return cors({
    origin: '*',
    methods: [...methods],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    optionsSuccessStatus: 204,
    maxAge: 600,
  });
}
