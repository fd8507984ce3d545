import express, { Router, type Response } from 'express';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Logger } from '@platform/runtime';
import { routeGroup } from '@platform/kernel';

/**
 * Where the built operator console is: `dist/` of the `@platform/admin-console` package (a
 * dependency of this service, so `pnpm deploy --prod` ships it), or undefined when it has not
 * been built (`pnpm build`).
 */
function adminConsoleDir(): string | undefined {
  try {
    const manifest = createRequire(__filename).resolve('@platform/admin-console/package.json');
    const dir = path.join(path.dirname(manifest), 'dist');
    return existsSync(path.join(dir, 'index.html')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** Scripts and styles only from the console's own files; it talks to this service's admin API only. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const NOT_BUILT =
  'The operator console is not built. Run `pnpm build` (or `pnpm --filter @platform/admin-console build`) and restart the service; ' +
  '`pnpm start` builds it by itself.';

/** The admin API's own paths under /admin are not the console's. */
const API = /^\/v[0-9]+(\/|$)/;

/**
 * `/admin/`: the operator console (static files built by Vite), with a strict CSP on every
 * answer. No declared route: its files are no API. A router of its own, mounted last, so that
 * the admin API's paths leave it at once (`next('router')`) for the kernel's 404.
 */
export const adminConsoleRoutes = routeGroup<{ logger: Logger }>({
  routes: [],
  mount: (router, { logger }) => void router.use(consoleRouter(adminConsoleDir(), logger)),
});

function consoleRouter(dir: string | undefined, logger: Logger): Router {
  const router = Router();
  if (!dir) logger.warn('operator console not built: /admin/ answers 503', { hint: NOT_BUILT });
  router.use('/admin', (req, res, next) => {
    if (API.test(req.path)) {
      next('router');
      return;
    }
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    if (!dir) {
      res.status(503).type('text/plain; charset=utf-8').send(`${NOT_BUILT}\n`);
      return;
    }
    next();
  });
  if (dir) {
    router.use(
      '/admin',
      express.static(dir, {
        index: 'index.html',
        redirect: true,
        fallthrough: true,
        setHeaders(res: Response, file: string) {
          const immutable = file.startsWith(path.join(dir, 'assets') + path.sep);
          res.setHeader('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-store');
        },
      }),
    );
  }
  return router;
}
