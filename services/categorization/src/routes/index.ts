/**
 * The categorization service's route table (issue 42): every routes file's group, in the order
 * of the OpenAPI document (`declaredRoutes`), and mounted in that order by app.ts
 * (`mountRouteGroups`). A new routes file is one line here; a new route in a file, none.
 */
import { adminRoutes } from './admin.routes';
import { categoryRoutes } from './categories.routes';

export const categorizationRouteTable = [categoryRoutes, adminRoutes];
