import type { Express, Request, Response } from 'express';
import { AppError, invalidMessage, throwIfInvalid, type FieldMessages, type Params } from '@platform/wire';
import { checkOutputFormat, formatOf, handler, publicEdge, unavailable } from '@platform/kernel';
import { presentedCredential, type CredentialVerifier } from '@platform/credentials';
import type { CatalogCache } from '../catalog/catalog-cache';
import { parseOrder, type CategoryOrder } from '../domain/category-order';
import { ifNoneMatchHits } from './conditional-get';
import { preferredCoding } from './content-coding';

export const CATEGORIES_PATH = '/api/v2/categories';
const CACHE_CONTROL = 'public, max-age=300';

/** No credential is needed; one that is sent must be valid (CONTRACT §4.5). */
async function checkCredential(req: Request, params: Params, verifier: CredentialVerifier): Promise<void> {
  const credential = presentedCredential(req, params);
  if (!credential.presented) return;
  try {
    await verifier.require(credential.secret);
  } catch (error) {
    if (error instanceof AppError) throw error;
    // The key directory or the token store did not answer: not the caller's fault.
    throw unavailable(error);
  }
}

/** `order` and the kernel's outputFormat decision; both are reported together when both are bad. */
function readOrder(params: Params, res: Response): CategoryOrder {
  const errors: FieldMessages = {};
  const raw = params.get('order');
  let order: CategoryOrder = 'IAB';
  if (raw.kind === 'value') {
    const parsed = parseOrder(raw.value);
    if (parsed) order = parsed;
    else errors.order = [invalidMessage('order')];
  } else if (raw.kind === 'invalid') {
    errors.order = [invalidMessage('order')];
  }
  checkOutputFormat(res, errors);
  throwIfInvalid(errors);
  return order;
}

/**
 * `GET /api/v2/categories`: the whole list, served from memory in the coding the client prefers
 * (br, gzip, identity; compressed when the categories changed, never per request), with a strong
 * ETag per coding and 304 (CONTRACT §4.5).
 */
export function mountCategoryRoutes(app: Express, deps: { catalog: CatalogCache; verifier: CredentialVerifier }): void {
  app.get(
    CATEGORIES_PATH,
    handler(publicEdge, async (req, res, params) => {
      // On every answer of this endpoint, errors included.
      res.vary('Accept-Encoding');
      await checkCredential(req, params, deps.verifier);
      const order = readOrder(params, res);
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
  );
}
