/**
 * A service's two OpenAPI documents (issue 45): `/openapi.json` describes its public endpoints
 * (CONTRACT §8), for anyone; the admin and internal APIs are described apart, at
 * `GET /admin/v1/openapi.json`, which answers an admin token only (either role: it is a read).
 */
import type { IRouter } from 'express';
import { z } from 'zod';
import { declareRoute, mountedPaths, type RouteDeclaration } from './route-declaration';
import { adminEdge } from './route-edge';
import { openApiDocument, type ServiceDocumentOptions } from './route-openapi';
import { mountRoute } from './route-mounting';
import { respond } from './respond';

/** Where the admin document is served: under the admin API's prefix, behind its guard. */
export const ADMIN_DOCUMENT_PATH = '/admin/v1/openapi.json';

/** A path of the admin or internal APIs (CONTRACT §7): documented in the admin document only. */
export function isOperatorPath(path: string): boolean {
  return /^\/(admin|internal)\//.test(path);
}

/** The admin document's own route; `adminScheme` names its security scheme in the document. */
const adminDocumentRoute = (adminScheme?: string): RouteDeclaration =>
  declareRoute({
    methods: ['get'],
    paths: [ADMIN_DOCUMENT_PATH],
    edge: adminEdge,
    summary: 'This document: the admin and internal endpoints (admin token, either role)',
    ...(adminScheme === undefined ? {} : { security: [{ [adminScheme]: [] }] }),
    responses: {
      200: {
        description: 'OpenAPI 3.1',
        body: z.object({ openapi: z.string() }).passthrough().openapi({ description: 'An OpenAPI 3.1 document' }),
      },
      401: 'Missing or wrong admin token (X-Refusal-Reason: wrong_admin_token)',
      429: 'Too many wrong admin tokens from this address',
    },
  });

export interface ServiceDocuments {
  /** The public endpoints, served at `/openapi.json` to anyone. */
  openapi: Record<string, unknown>;
  /** The admin and internal endpoints, served at ADMIN_DOCUMENT_PATH to an admin token. */
  adminOpenapi: Record<string, unknown>;
}

/** The security schemes the routes name, out of `schemes`. */
function schemesOf(routes: ReadonlyArray<RouteDeclaration>, schemes: ServiceDocumentOptions['securitySchemes'] = {}) {
  const named = new Set(routes.flatMap((route) => (route.security ?? []).flatMap((requirement) => Object.keys(requirement))));
  return Object.fromEntries(Object.entries(schemes).filter(([name]) => named.has(name)));
}

/**
 * Splits the declarations of a service with an admin API into its public document and its admin
 * document (a service without one documents its routes with `openApiDocument`); `adminScheme`
 * names the admin-token security scheme of `securitySchemes`. A declaration must be wholly public
 * or wholly admin/internal.
 */
export function serviceDocuments(options: ServiceDocumentOptions & { adminScheme: string }): ServiceDocuments {
  const isOperator = (route: RouteDeclaration): boolean => {
    const paths = mountedPaths(route);
    const operator = paths.filter(isOperatorPath).length;
    if (operator !== 0 && operator !== paths.length) throw new Error(`${paths.join(', ')}: public and admin paths in one declaration`);
    return operator !== 0;
  };
  const publicRoutes = options.routes.filter((route) => !isOperator(route));
  const operatorRoutes = options.routes.filter(isOperator);
  const { info, securitySchemes } = options;
  const openapi = openApiDocument({ info, routes: publicRoutes, securitySchemes: schemesOf(publicRoutes, securitySchemes) });
  const adminRoutes = [...operatorRoutes, adminDocumentRoute(options.adminScheme)];
  return {
    openapi,
    adminOpenapi: openApiDocument({
      info: {
        version: info.version,
        title: `${info.title}: admin and internal endpoints`,
        description: `The admin API (admin token) and the internal API, if any (service JWT), of this service; its public endpoints are in /openapi.json.`,
      },
      routes: adminRoutes,
      securitySchemes: schemesOf(adminRoutes, securitySchemes),
    }),
  };
}

/** Mounts ADMIN_DOCUMENT_PATH on `router`: call it behind the admin API's guard (`requireAdminToken` on `/admin/v1`). */
export function mountAdminDocument(router: IRouter, document: Record<string, unknown>): void {
  mountRoute(router, adminDocumentRoute(), (_req, res) => {
    // Answered to a token: no cache keeps it for the next asker.
    res.setHeader('Cache-Control', 'no-store');
    respond(res, 200, document);
  });
}
