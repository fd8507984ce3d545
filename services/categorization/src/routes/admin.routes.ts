import type { Express } from 'express';
import { type Logger } from '@platform/runtime';
import { adminEdge, declareRoute, locals, mountRoute, respond } from '@platform/kernel';
import type { FailureLimit } from '@platform/credentials';
import { requireAdminToken, type NamedAdminToken } from '@platform/kernel';
import { z } from 'zod';
import type { CatalogCache } from '../catalog/catalog-cache';
import { createCustomCategory, deleteCategory, readNewCategory, type CustomCategoryWriter } from '../domain/custom-categories';
import { Category } from './categories.routes';

const adminSecurity = [{ adminToken: [] }];
const ADMIN_401 = 'Missing or wrong admin token.';

/** `POST /admin/v1/categories`: the body is the domain's to read (`readNewCategory`: the catalogue decides the parent). */
export const createCategoryRoute = declareRoute({
  methods: ['post'],
  paths: ['/admin/v1/categories'],
  edge: adminEdge,
  summary: 'Create a custom category (CUS-<n>)',
  security: adminSecurity,
  body: { required: true, content: { 'application/json': z.object({ name: z.string().max(255), parent: z.string().nullable() }) } },
  responses: {
    201: { description: 'Created.', body: Category },
    401: ADMIN_401,
    409: 'A sibling already has this name (case-insensitive).',
    422: 'Missing or bad name or parent, or unknown parent.',
  },
});

export const deleteCategoryRoute = declareRoute({
  methods: ['delete'],
  paths: ['/admin/v1/categories/{id}'],
  edge: adminEdge,
  summary: 'Delete a custom category without children',
  security: adminSecurity,
  pathParams: { id: z.string() },
  responses: {
    204: { description: 'Deleted.' },
    401: ADMIN_401,
    404: 'Unknown id.',
    409: 'An IAB category, or a category with children.',
  },
});

export interface AdminRouteDeps {
  writer: CustomCategoryWriter;
  catalog: CatalogCache;
  /** Undefined: every admin call is refused. */
  adminTokens: readonly NamedAdminToken[];
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
  app.use('/admin/v1', requireAdminToken(deps.adminTokens, { failures: deps.adminFailures }));
  mountRoute(app, createCategoryRoute, async (_req, res, request) => {
    const input = readNewCategory(request.params.rawBody());
    const category = await createCustomCategory(deps.writer, input);
    await refreshAfterChange(deps.catalog, locals(res).log);
    locals(res).log.info('category created', { id: category.id, parent: category.parent });
    respond(res, 201, category);
  });

  mountRoute(app, deleteCategoryRoute, async (req, res) => {
    const id = typeof req.params.id === 'string' ? req.params.id : '';
    await deleteCategory(deps.writer, id);
    await refreshAfterChange(deps.catalog, locals(res).log);
    locals(res).log.info('category deleted', { id });
    res.status(204).end();
  });
}
