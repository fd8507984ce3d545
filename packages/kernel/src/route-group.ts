/**
 * How a service mounts its routes, the same in every service (issue 42): each routes file
 * exports one `routeGroup` — its declarations and the function that mounts them over what they
 * use (the domain's use cases and narrow ports, never a service's whole deps) — and the service
 * lists its groups in one table, `src/routes/index.ts`. The table is at once the OpenAPI
 * document's route list (`declaredRoutes`) and what the app mounts (`mountRouteGroups`), so a
 * new route is declared and mounted in its routes file, and a new routes file is one line there.
 */
import type { IRouter } from 'express';
import type { RouteDeclaration } from './route-declaration';

export interface RouteGroup<Uses> {
  /** The group's declarations, in the document's order. */
  readonly routes: ReadonlyArray<RouteDeclaration>;
  /**
   * The group is an internal API (the user service's usage API): mounted before every other
   * group (its routes are the busiest), on the internal listener when the service has one.
   */
  readonly internal?: boolean;
  /**
   * Mounts each declaration (`mountRoute`) and the middleware its routes need (a guard, headers,
   * static files) on the app itself: a router nested in the app's costs a second dispatch per request.
   */
  readonly mount: (router: IRouter, uses: Uses) => void;
}

/** Declares a routes file's group; the identity, typed (so that `mount` keeps its narrow `uses`). */
export function routeGroup<Uses>(group: RouteGroup<Uses>): RouteGroup<Uses> {
  return Object.freeze(group);
}

/** A group's `uses` as a function's parameter (so that a union of groups gives the intersection of their `uses`). */
type Taking<Group> = Group extends RouteGroup<infer Uses> ? (uses: Uses) => void : never;

/** What a service's table uses: every group's `uses` together (what its app.ts builds, once). */
export type UsesOf<Table extends ReadonlyArray<RouteGroup<never>>> = Taking<Table[number]> extends (uses: infer All) => void ? All : never;

/** Every declaration of a service's table, in the table's order: the OpenAPI document's route list. */
export function declaredRoutes(table: ReadonlyArray<RouteGroup<never>>): RouteDeclaration[] {
  return table.flatMap((group) => group.routes);
}

/** Where a service's groups are mounted: its app, and its internal app when it serves the internal API on a port of its own. */
export interface RouteTargets {
  app: IRouter;
  internal?: IRouter | undefined;
}

/**
 * Mounts a service's table: the internal groups first (on `internal` when there is one, else on
 * `app`), then the others on `app`, each in the table's order. Every group is given the same
 * `uses`, which holds what each one asks for (`UsesOf`); each sees only its own part.
 */
export function mountRouteGroups<Table extends ReadonlyArray<RouteGroup<never>>>(
  targets: RouteTargets,
  table: Table,
  uses: UsesOf<Table>,
): void {
  const all = uses as never;
  for (const group of table) if (group.internal === true) group.mount(targets.internal ?? targets.app, all);
  for (const group of table) if (group.internal !== true) group.mount(targets.app, all);
}
