import { adminEdge, adminActor, adminRole, declareRoute, mountRoute, respond, routeGroup } from '@platform/kernel';
import { z } from 'zod';
import type { CatalogueReads } from '../domain/catalogue';
import { adminSecurity } from './schemas';

const AdminProduct = z
  .object({
    id: z.number().int(),
    name: z.string(),
    pool: z.array(z.number().int()).openapi({ description: 'Every product id of its pool, itself included, ascending.' }),
  })
  .openapi('AdminProduct');

/** `GET /admin/v1/products` (CONTRACT §7): the catalogue, so that no operator types a bare product id. */
export const listProductsRoute = declareRoute({
  methods: ['get'],
  paths: ['/admin/v1/products'],
  edge: adminEdge,
  summary: 'The product catalogue with each product’s pool (admin)',
  security: adminSecurity,
  responses: {
    200: { description: 'Every product, by id', body: z.object({ data: z.array(AdminProduct) }) },
    401: 'Missing or wrong admin token',
    429: 'The address is over its failure limit (every admin call, until its window ends)',
  },
});

/** `GET /admin/v1/session`: who the admin token is (its name and role), so that the console offers only what the role may do. */
export const adminSessionRoute = declareRoute({
  methods: ['get'],
  paths: ['/admin/v1/session'],
  edge: adminEdge,
  accountData: true,
  summary: 'The admin token’s name and role (admin)',
  description: 'Role `support` may read only: the console hides every write for it.',
  security: adminSecurity,
  responses: {
    200: {
      description: 'The token’s name (the audit log’s actor) and role',
      body: z
        .object({ actor: z.string(), role: z.enum(['admin', 'support']), brandName: z.string().openapi({ description: 'BRAND_NAME' }) })
        .openapi('AdminSession'),
    },
    401: 'Missing or wrong admin token',
    429: 'The address is over its failure limit (every admin call, until its window ends)',
  },
});

/** Mounted behind the admin guard by adminRoutes; the catalogue read fresh (a migration may have added products since the start). */
export const adminProductRoutes = routeGroup<{ catalogue: CatalogueReads; brandName: string }>({
  routes: [listProductsRoute, adminSessionRoute],
  mount(router, { catalogue, brandName }) {
    mountRoute(router, adminSessionRoute, (_req, res) => {
      respond(res, 200, { actor: adminActor(res), role: adminRole(res), brandName });
    });
    mountRoute(router, listProductsRoute, async (_req, res) => {
      const { products, byPool } = await catalogue.reload();
      const data = products.map((product) => ({
        id: product.id,
        name: product.name,
        pool: (byPool.get(product.poolId) ?? [product]).map((member) => member.id),
      }));
      respond(res, 200, { data });
    });
  },
});
