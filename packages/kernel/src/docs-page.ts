import type { Express, Response } from 'express';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DOCS_ASSETS } from './operations-routes';

/**
 * `GET /docs` (CONTRACT §8): the service's `/openapi.json` as a reference in a browser, drawn by
 * Swagger UI from the `swagger-ui-dist` package's own files, served by the service itself (no
 * third-party host). Every script is a file of the service, so the policy allows no inline code.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // Swagger UI draws its icons as data: SVGs.
  "img-src 'self' data:",
  // "Try it out" calls this service only.
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function page(service: string): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${service} service API reference</title>`,
    '<link rel="stylesheet" href="/docs/assets/swagger-ui.css">',
    // No icon to fetch (the browser would ask for /favicon.ico, which no service has).
    '<link rel="icon" href="data:,">',
    '</head><body>',
    '<main id="reference"></main>',
    '<script src="/docs/assets/swagger-ui-bundle.js"></script>',
    '<script src="/docs/assets/start.js"></script>',
    '</body></html>',
    '',
  ].join('\n');
}

/** Draws the reference of this service's document; no validator badge (it would call a third-party host). */
const START = `SwaggerUIBundle({ url: '/openapi.json', dom_id: '#reference', validatorUrl: null, deepLinking: true });\n`;

function secured(res: Response): Response {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  return res;
}

/** Mounts `/docs` and its assets on the app. */
export function mountDocsPage(app: Express, service: string): void {
  const dist = path.dirname(createRequire(__filename).resolve('swagger-ui-dist/package.json'));
  const html = page(service.replace(/[^A-Za-z0-9 _-]/g, ''));
  app.get('/docs', (_req, res) => {
    secured(res).type('html').setHeader('Cache-Control', 'no-cache');
    res.send(html);
  });
  app.get('/docs/assets/:file', (req, res, next) => {
    const file = DOCS_ASSETS.find((name) => name === req.params.file);
    if (file === undefined) return next();
    secured(res).setHeader('Cache-Control', 'public, max-age=300');
    if (file === 'start.js') return void res.type('text/javascript').send(START);
    // `dotfiles`: the package lies under node_modules/.pnpm.
    res.sendFile(path.join(dist, file), { dotfiles: 'allow' }, (error) => {
      if (error) next(error);
    });
  });
}
