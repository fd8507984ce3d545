import type { Request } from 'express';
import { AppError, type Params } from '@platform/wire';
import { declareRoute, formatOf, mountRoute, outputFormatParam, publicEdge, routeGroup, unavailable } from '@platform/kernel';
import { presentedCredential, type CredentialVerifier } from '@platform/credentials';
import { z } from 'zod';
import type { CatalogCache } from '../catalog/catalog-cache';
import { CATEGORY_ORDERS, parseOrder, type CategoryOrder } from '../domain/category-order';
import { ifNoneMatchHits } from './conditional-get';
import { preferredCoding } from './content-coding';

const CATEGORIES_PATH = '/api/v2/categories';
const CACHE_CONTROL = 'public, max-age=300';

/** No credential is needed; one that is sent must be valid (CONTRACT §4.5). */
async function checkCredential(req: Request, params: Params, verifier: CredentialVerifier): Promise<void> {
  const credential = presentedCredential(req, params);
  if (!credential.presented) return;
  try {
    await verifier.require(credential);
  } catch (error) {
    if (error instanceof AppError) throw error;
    // The key directory or the token store did not answer: not the caller's fault.
    throw unavailable(error);
  }
}

/** `order`: `IAB` (default) or `ABC`, case-insensitive (CONTRACT §4.5). */
const orderParam = z
  .string()
  .refine((value) => parseOrder(value) !== undefined)
  .transform((value) => parseOrder(value) as CategoryOrder)
  .optional()
  .transform((order): CategoryOrder => order ?? 'IAB')
  .openapi({ type: 'string', enum: [...CATEGORY_ORDERS], default: 'IAB', description: 'Case-insensitive.' });

/** A category as the list and the admin API answer it. */
export const Category = z
  .object({
    id: z
      .string()
      .regex(/^(IAB|CUS)-[0-9]+$/)
      .openapi({ examples: ['IAB-1', 'CUS-3'] }),
    name: z.string().max(255),
    parent: z.string().nullable().openapi({ description: 'Id of the direct parent; null for a top-level category.' }),
  })
  .openapi('Category');

export const categoriesRoute = declareRoute({
  cors: true,
  methods: ['get'],
  paths: [CATEGORIES_PATH],
  edge: publicEdge,
  summary: 'List every category',
  description: 'No credential is required; a credential that is sent (apiKey or Authorization: Bearer) must be valid.',
  // `order` and the kernel's outputFormat decision are reported together when both are bad, in this order.
  params: {
    order: orderParam,
    outputFormat: outputFormatParam.openapi({ default: 'JSON', description: 'Case-insensitive.' }),
    apiKey: z.string().optional().openapi({ description: 'Optional API key or access token.' }),
  },
  headerParams: { 'If-None-Match': z.string().optional() },
  responses: {
    200: {
      description: 'The categories, as a bare array.',
      body: z.array(Category),
      xmlBody: z.string(),
      headers: { ETag: z.string(), 'Cache-Control': z.literal(CACHE_CONTROL) },
    },
    304: { description: 'Not modified (If-None-Match matched the ETag).' },
    401: 'A credential was sent and is not valid.',
    422: 'Bad order or outputFormat.',
    503: 'The credential could not be checked, or the list is not loaded yet.',
  },
});

/**
 * `GET /api/v2/categories`: the whole list, served from memory in the coding the client prefers
 * (br, gzip, identity; compressed when the categories changed, never per request), with a strong
 * ETag per coding and 304 (CONTRACT §4.5).
 */
export const categoryRoutes = routeGroup<{ catalog: CatalogCache; verifier: CredentialVerifier }>({
  routes: [categoriesRoute],
  mount: (router, deps) =>
    mountRoute(router, categoriesRoute, async (req, res, request) => {
      // On every answer of this endpoint, errors included.
      res.vary('Accept-Encoding');
      await checkCredential(req, request.params, deps.verifier);
      const { order } = request.input();
      if (!deps.catalog.loaded) throw unavailable();
      const representation = deps.catalog.current().representation(order, formatOf(res));
      const coding = preferredCoding(req.headers['accept-encoding']);
      const { body, etag } = representation.coded[coding];
      res.setHeader('ETag', etag);
      res.setHeader('Cache-Control', CACHE_CONTROL);
      if (ifNoneMatchHits(req.headers['if-none-match'], etag)) {
        res.status(304).end();
        return;
      }
      res.setHeader('Content-Type', representation.contentType);
      if (coding !== 'identity') res.setHeader('Content-Encoding', coding);
      res.setHeader('Content-Length', body.length);
      // The body as it is kept: res.send would look at it again (type, freshness) on every request.
      res.statusCode = 200;
      res.end(body);
    }),
});
