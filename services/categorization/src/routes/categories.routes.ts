import type { Express, Request } from 'express';
import {
  AppError,
  handler,
  invalidMessage,
  locals,
  Params,
  readOutputFormat,
  throwIfInvalid,
  type FieldMessages,
  type OutputFormat,
} from '@platform/common';
import { presentedCredential, type CredentialVerifier } from '@platform/credentials';
import type { CatalogCache } from '../catalog/catalog-cache';
import { parseOrder, type CategoryOrder } from '../domain/category-order';
import { ifNoneMatchHits } from './conditional-get';

export const CATEGORIES_PATH = '/api/v2/categories';
const CACHE_CONTROL = 'public, max-age=300';
const RETRY_AFTER_SECONDS = 5;

/** No credential is needed; one that is sent must be valid (CONTRACT §4.5). */
async function checkCredential(req: Request, params: Params, verifier: CredentialVerifier): Promise<void> {
  const credential = presentedCredential(req, params);
  if (!credential.presented) return;
  try {
    await verifier.require(credential.secret);
  } catch (error) {
    if (error instanceof AppError) throw error;
    // The key directory or the token store did not answer: not the caller's fault.
    throw new AppError('unavailable', { retryAfterSeconds: RETRY_AFTER_SECONDS, cause: error });
  }
}

/** `order` and `outputFormat`; both are reported together when both are bad. */
function readListParams(params: Params): { order: CategoryOrder; format: OutputFormat } {
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
  let format: OutputFormat = 'JSON';
  try {
    format = readOutputFormat(params);
  } catch (error) {
    if (!(error instanceof AppError) || error.fields === undefined) throw error;
    Object.assign(errors, error.fields);
  }
  throwIfInvalid(errors);
  return { order, format };
}

/** `GET /api/v2/categories`: the whole list, served from memory, with ETag and 304. */
export function mountCategoryRoutes(app: Express, deps: { catalog: CatalogCache; verifier: CredentialVerifier }): void {
  app.get(
    CATEGORIES_PATH,
    handler('codeMessages', async (req, res) => {
      const params = Params.from(req);
      await checkCredential(req, params, deps.verifier);
      const { order, format } = readListParams(params);
      locals(res).outputFormat = format;
      if (!deps.catalog.loaded) throw new AppError('unavailable', { retryAfterSeconds: RETRY_AFTER_SECONDS });
      const representation = deps.catalog.current().representation(order, format);
      res.setHeader('ETag', representation.etag);
      res.setHeader('Cache-Control', CACHE_CONTROL);
      if (ifNoneMatchHits(req.get('if-none-match'), representation.etag)) {
        res.status(304).end();
        return;
      }
      res.status(200).type(representation.contentType).send(representation.body);
    }),
  );
}
