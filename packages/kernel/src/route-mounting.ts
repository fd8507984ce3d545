/** A declared route on express: its handler (edge, validators, account-data headers) on every method and path it names. */
import type { IRouter, Request, RequestHandler, Response } from 'express';
import type { ZodTypeAny } from 'zod';
import type { Params } from '@platform/wire';
import type { PublicEndpoints } from './cors';
import {
  ACCOUNT_DATA_HEADERS,
  mountedPaths,
  type DeclaredRequest,
  type DeclaredRouteFn,
  type ParamShape,
  type RouteDeclaration,
} from './route-declaration';
import { handler } from './route-handler';
import { validateParams, validateParamsWith, validatePath } from './route-validation';

/** `/a/{id}` → `/a/:id`. */
function expressPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/** The express handler of a declared route: enters its edge and hands it its validators. */
export function declaredHandler<S extends ParamShape, D extends ZodTypeAny, P extends ParamShape>(
  declaration: RouteDeclaration<S, D, P>,
  fn: DeclaredRouteFn<S, D, P>,
): RequestHandler {
  const request = (req: Request, res: Response, params: Params): DeclaredRequest<S, D, P> => ({
    params,
    input: () => validateParams(declaration, params, res),
    inputWith: (rule) => validateParamsWith(declaration, params, rule, res),
    path: () => validatePath(declaration.pathParams, req.params),
  });
  if (declaration.accountData !== true) return handler(declaration.edge, (req, res, params) => fn(req, res, request(req, res, params)));
  return handler(declaration.edge, (req, res, params) => {
    // Before the route's work, so that its refusals (401, 422) carry them too.
    for (const [name, value] of Object.entries(ACCOUNT_DATA_HEADERS)) res.setHeader(name, value);
    return fn(req, res, request(req, res, params));
  });
}

/** Mounts a declared route on every method and path it declares. */
export function mountRoute<S extends ParamShape, D extends ZodTypeAny, P extends ParamShape>(
  router: IRouter,
  declaration: RouteDeclaration<S, D, P>,
  fn: DeclaredRouteFn<S, D, P>,
): void {
  const routeHandler = declaredHandler(declaration, fn);
  for (const path of mountedPaths(declaration)) {
    for (const method of declaration.methods) router[method](expressPath(path), routeHandler);
  }
}

/** The JSON body limits of the routes declared with a `bodyLimit`, by path (`createHttpApp`'s `largeJsonBodies`). */
export function largeJsonBodies(routes: ReadonlyArray<RouteDeclaration>): Record<string, string> {
  const limits: Record<string, string> = {};
  for (const route of routes) {
    if (route.bodyLimit === undefined) continue;
    for (const path of mountedPaths(route)) {
      // The body parser looks the limit up by the request's path, before any route matches it.
      if (path.includes('{')) throw new Error(`bodyLimit on a path with parameters: ${path}`);
      limits[path] = route.bodyLimit;
    }
  }
  return limits;
}

/** The CORS endpoints (CONTRACT §2) among a service's declarations: every path of a route declared `cors`, with its methods. */
export function corsEndpoints(routes: ReadonlyArray<RouteDeclaration>): PublicEndpoints {
  const endpoints: Record<string, string[]> = {};
  for (const route of routes.filter((declared) => declared.cors === true)) {
    for (const path of mountedPaths(route)) {
      const methods = (endpoints[path] ??= []);
      for (const method of route.methods) if (!methods.includes(method.toUpperCase())) methods.push(method.toUpperCase());
    }
  }
  return endpoints;
}
