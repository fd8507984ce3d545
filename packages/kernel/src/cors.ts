import cors from 'cors';
import type { Request, RequestHandler, Response } from 'express';

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

/** What the kernel does for CORS on a request: nothing, or the headers set, or a preflight answered. */
export type CorsStep = (req: Request, res: Response) => boolean;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * CORS for every public endpoint in one step of the kernel, instead of one router layer per
 * endpoint: the path is matched once (as `app.use(path)` would: case-insensitively, the path or
 * below it). A preflight is answered by the cors library (returns true: the request is done); any
 * other request to a public endpoint gets the two headers the library would set for `origin: '*'`,
 * built once (the library rebuilds its options object and header list on every request).
 */
export function publicCorsStep(endpoints: PublicEndpoints): CorsStep {
  const preflights = new Map(Object.entries(endpoints).map(([path, methods]) => [path.toLowerCase(), publicCors(methods)]));
  if (preflights.size === 0) return () => false;
  // Longest first: a path below another public one (`…/notification-settings/webhook-test`) is its own endpoint, with its own methods.
  const paths = [...preflights.keys()].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(`^(${paths.map(escapeRegExp).join('|')})(?:/|$)`, 'i');
  const exposed = EXPOSED_HEADERS.join(',');
  return (req, res) => {
    const matched = pattern.exec(req.path)?.[1];
    if (matched === undefined) return false;
    if (req.method === 'OPTIONS') {
      const preflight = preflights.get(matched.toLowerCase()) as RequestHandler;
      // The library ends a preflight itself (204) and never calls next without preflightContinue.
      void preflight(req, res, () => undefined);
      return true;
    }
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', exposed);
    return false;
  };
}
