/**
 * The notifier's route table (issue 42): empty, as it has no API of its own (CONTRACT §8: the
 * kernel's operations endpoints only). A routes file's group would be one line here, in the
 * order of the OpenAPI document (`declaredRoutes`), and app.ts would mount it (`mountRouteGroups`).
 */
import type { RouteGroup } from '@platform/kernel';

export const notifierRouteTable: ReadonlyArray<RouteGroup<object>> = [];
