import { type Logger } from '@platform/runtime';
import {
  adminActor,
  adminEdge,
  declareRoute,
  fieldMessage,
  locals,
  mountAdminDocument,
  mountRoute,
  requireAdminToken,
  respond,
  routeGroup,
  type NamedAdminToken,
} from '@platform/kernel';
import type { FailureLimit } from '@platform/credentials';
import { z } from 'zod';
import type { CatalogCache } from '../catalog/catalog-cache';
import { hasForbiddenCharacters, MAX_NAME_LENGTH, nameLength, parseCategoryId } from '../domain/category';
import { createCustomCategory, deleteCategory, type CustomCategoryWriter, type NewCategory } from '../domain/custom-categories';
import { Category } from './categories.routes';

const adminSecurity = [{ adminToken: [] }];
const ADMIN_401 = 'Missing or wrong admin token.';
const ADMIN_READ_ONLY = 'A support token: this admin token may only read (X-Refusal-Reason: read_only_admin).';

/** `name`: trimmed; absent, null or blank is `required`; 1–255 characters (code points), no control characters. */
const categoryName = z
  .preprocess(
    (value) => (value === null ? undefined : typeof value === 'string' ? value.trim() || undefined : value),
    z
      .string()
      .refine(
        (name) => nameLength(name) <= MAX_NAME_LENGTH,
        fieldMessage(`The name may not be greater than ${MAX_NAME_LENGTH} characters.`),
      )
      .refine((name) => !hasForbiddenCharacters(name)),
  )
  .openapi({ type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH, description: 'Trimmed.' });

/**
 * `parent`: an id shaped like `IAB-<n>` or `CUS-<n>`, or null for a top-level category; leaving
 * it out (or `''`) is not null (CONTRACT §7). Whether the parent exists is the domain's to say.
 */
const categoryParent = z
  .preprocess(
    (value) => (value === '' ? undefined : value),
    z
      .string()
      .refine((id) => parseCategoryId(id) !== undefined)
      .nullable(),
  )
  .openapi({ type: ['string', 'null'], pattern: '^(IAB|CUS)-[1-9][0-9]{0,8}$' });

/** The body of `POST /admin/v1/categories`; every bad field is reported at once (422). */
export const NewCategoryBody = z
  .object({ name: categoryName, parent: categoryParent })
  .transform((body): NewCategory => body)
  .openapi({ example: { name: 'Drones', parent: 'IAB-1' } });

/** `POST /admin/v1/categories`: the body's shape is its schema's; whether the parent exists, the domain's. */
export const createCategoryRoute = declareRoute({
  methods: ['post'],
  paths: ['/admin/v1/categories'],
  edge: adminEdge,
  summary: 'Create a custom category (CUS-<n>)',
  security: adminSecurity,
  document: NewCategoryBody,
  responses: {
    201: { description: 'Created.', body: Category },
    401: ADMIN_401,
    403: ADMIN_READ_ONLY,
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
    403: ADMIN_READ_ONLY,
    404: 'Unknown id.',
    409: 'An IAB category, or a category with children.',
  },
});

export interface AdminRouteUses {
  writer: CustomCategoryWriter;
  catalog: CatalogCache;
  /** Undefined: every admin call is refused. */
  adminTokens: readonly NamedAdminToken[];
  /** Failed admin-token attempts per client address (CONTRACT §9). */
  adminFailures: FailureLimit;
  /** The admin document (served at /admin/v1/openapi.json, behind the guard). */
  document: Record<string, unknown>;
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
export const adminRoutes = routeGroup<AdminRouteUses>({
  routes: [createCategoryRoute, deleteCategoryRoute],
  mount(router, deps) {
    router.use('/admin/v1', requireAdminToken(deps.adminTokens, { failures: deps.adminFailures }));
    mountAdminDocument(router, deps.document);
    mountRoute(router, createCategoryRoute, async (_req, res, request) => {
      const actor = adminActor(res);
      const category = await createCustomCategory(deps.writer, request.input().document, actor);
      await refreshAfterChange(deps.catalog, locals(res).log);
      locals(res).log.info('category created', { id: category.id, parent: category.parent, actor });
      respond(res, 201, category);
    });

    mountRoute(router, deleteCategoryRoute, async (req, res) => {
      const id = typeof req.params.id === 'string' ? req.params.id : '';
      const actor = adminActor(res);
      await deleteCategory(deps.writer, id, actor);
      await refreshAfterChange(deps.catalog, locals(res).log);
      locals(res).log.info('category deleted', { id, actor });
      res.status(204).end();
    });
  },
});
