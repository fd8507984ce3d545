import express, { type IRouter, type Response } from 'express';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Logger } from '@platform/runtime';
import { declareRoute, mountRoute, publicEdge, routeGroup } from '@platform/kernel';
import { z } from 'zod';
import type { CatalogueReads } from '../domain/catalogue';
import { accountSessionRoutes, type AccountSessionRouteUses } from './account-session.routes';

/** `GET /account/config.json`: what the account page needs to start (where to sign in, the catalogue). */
export const accountPageConfigRoute = declareRoute({
  methods: ['get'],
  paths: ['/account/config.json'],
  // The app's default edge, as before it was declared: a failure answers like any unrouted error.
  edge: publicEdge,
  summary: "The account page's configuration",
  description: 'The auth service the page signs in with, and the catalogue (id, name, pool) it names products by. No credential.',
  responses: {
    200: {
      description: 'Configuration (Cache-Control: no-cache)',
      body: z.object({
        authUrl: z.string(),
        brandName: z.string(),
        topUpUrl: z.string().nullable().openapi({ description: "The operator's billing page (TOP_UP_URL), or null" }),
        products: z.array(z.object({ id: z.number().int(), name: z.string(), poolId: z.number().int() })),
      }),
    },
    503: 'Database unavailable',
  },
});

/**
 * Where the built account page is: `dist/` of the `@platform/account-page` package (a
 * dependency of this service, so `pnpm deploy --prod` ships it), or undefined when it has not
 * been built (`pnpm build`).
 */
export function accountPageDir(): string | undefined {
  try {
    const manifest = createRequire(__filename).resolve('@platform/account-page/package.json');
    const dir = path.join(path.dirname(manifest), 'dist');
    return existsSync(path.join(dir, 'index.html')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

export interface AccountPageRouteUses extends AccountSessionRouteUses {
  /** The auth service's base URL as the customer's browser reaches it (read per request: `pnpm start` learns it late). */
  accountPageAuthUrl: () => string;
  /** TOP_UP_URL: where the page sends a customer to buy credits (undefined: nowhere). */
  topUpUrl: string | undefined;
  brandName: string;
  catalogue: Pick<CatalogueReads, 'current'>;
  logger: Logger;
}

/** Scripts and styles come only from the page's own files; the page talks to this service and to the auth service. */
function contentSecurityPolicy(authUrl: string): string {
  let authOrigin = '';
  try {
    authOrigin = ` ${new URL(authUrl).origin}`;
  } catch {
    // An unusable URL adds nothing: sign-in then fails with a sentence, not a looser policy.
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${authOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const NOT_BUILT =
  'The account page is not built. Run `pnpm build` (or `pnpm --filter @platform/account-page build`) and restart the service; ' +
  '`pnpm start` builds it by itself.';

/**
 * `/account/`: the customer's account page (static files built by Vite, or the 503 saying how to
 * build them), its config, and a CSP on every answer; its session API first, whose answers carry
 * no page headers.
 */
export const accountPageRoutes = routeGroup<AccountPageRouteUses>({
  routes: [accountPageConfigRoute, ...accountSessionRoutes.routes],
  mount(router, uses) {
    accountSessionRoutes.mount(router, uses);
    mountAccountPage(router, accountPageDir(), uses);
  },
});

function mountAccountPage(router: IRouter, dir: string | undefined, options: AccountPageRouteUses): void {
  if (!dir) options.logger.warn('account page not built: /account/ answers 503', { hint: NOT_BUILT });
  router.use('/account', (_req, res, next) => {
    res.setHeader('Content-Security-Policy', contentSecurityPolicy(options.accountPageAuthUrl()));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    next();
  });
  mountRoute(router, accountPageConfigRoute, async (_req, res) => {
    const { products } = await options.catalogue.current();
    res.setHeader('Cache-Control', 'no-cache');
    res.json({
      authUrl: options.accountPageAuthUrl(),
      brandName: options.brandName,
      topUpUrl: options.topUpUrl ?? null,
      products: products.map(({ id, name, poolId }) => ({ id, name, poolId })),
    });
  });
  if (!dir) {
    router.use('/account', (_req, res) => {
      res.status(503).type('text/plain; charset=utf-8').send(`${NOT_BUILT}\n`);
    });
    return;
  }
  router.use(
    '/account',
    express.static(dir, {
      index: 'index.html',
      fallthrough: true,
      setHeaders(res: Response, file: string) {
        // Vite names every asset by its content hash; index.html names the current ones.
        const immutable = file.startsWith(path.join(dir, 'assets') + path.sep);
        res.setHeader('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    }),
  );
}
