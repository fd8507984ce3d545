import type { Express } from 'express';
import { adminEdge, handler, locals, respond } from '@platform/kernel';
import { type Logger } from '@platform/runtime';
import { requireAdminToken, type FailureLimit } from '@platform/credentials';
import type { CatalogCache } from '../catalog/catalog-cache';
import { createCustomCategory, deleteCategory, readNewCategory, type CustomCategoryWriter } from '../domain/custom-categories';

export interface AdminRouteDeps {
  writer: CustomCategoryWriter;
  catalog: CatalogCache;
  /** Undefined: every admin call is refused. */
  adminToken: string | undefined;
  /** Failed admin-token attempts per client address (CONTRACT §9). */
  adminFailures: FailureLimit;
}

/** The instance that made a change serves it at once; a failed reload is caught up by the poller. */
async function refreshAfterChange(catalog: CatalogCache, log: Logger): Promise<void> {
  try {
    await catalog.refresh();
  } catch (error) {
    log.warn('category list reload after a change failed', { error });
  }
}

/** Admin API for custom categories (CONTRACT §7): JSON only, no WWW-Authenticate. */
export function mountAdminRoutes(app: Express, deps: AdminRouteDeps): void {
  app.use('/admin/v1', requireAdminToken(deps.adminToken, { failures: deps.adminFailures }));
  app.post(
    '/admin/v1/categories',
    handler(adminEdge, async (_req, res, params) => {
      const input = readNewCategory(params.rawBody());
      const category = await createCustomCategory(deps.writer, input);
      await refreshAfterChange(deps.catalog, locals(res).log);
      locals(res).log.info('category created', { id: category.id, parent: category.parent });
      respond(res, 201, category);
    }),
  );

  app.delete(
    '/admin/v1/categories/:id',
    handler(adminEdge, async (req, res) => {
      const id = typeof req.params.id === 'string' ? req.params.id : '';
      await deleteCategory(deps.writer, id);
      await refreshAfterChange(deps.catalog, locals(res).log);
      locals(res).log.info('category deleted', { id });
      res.status(204).end();
    }),
  );
}
