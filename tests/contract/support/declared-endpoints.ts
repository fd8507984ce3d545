/**
 * The endpoints the suite covers, read from the services' route declarations (the one source of
 * what is mounted and documented), so that a route declared later is covered without an edit
 * here: its public endpoints (declared `cors`, CONTRACT §2) and, among them, those that answer
 * JSON or XML. What the suite expects of them is still written from the contract.
 */
import { corsEndpoints, mountedPaths, type RouteDeclaration } from '@platform/kernel';
import { authRoutes } from '@platform/auth/openapi';
import { categorizationRoutes } from '@platform/categorization/openapi';
import { userRoutes } from '@platform/user/openapi';
import type { ServiceName } from './fixture';

export type PublicService = Exclude<ServiceName, 'notifier'>;

/** Every service's route declarations. */
export const DECLARED_ROUTES: Readonly<Record<ServiceName, ReadonlyArray<RouteDeclaration>>> = {
  auth: authRoutes,
  user: userRoutes,
  categorization: categorizationRoutes,
  notifier: [],
};

const PUBLIC_SERVICES: readonly PublicService[] = ['auth', 'user', 'categorization'];

/** One method on one mounted path of a declared route. */
export interface DeclaredEndpoint {
  /** `POST /user-service/usage-history`. */
  name: string;
  service: PublicService;
  method: 'GET' | 'POST';
  path: string;
  route: RouteDeclaration;
}

function endpointsOf(service: PublicService, route: RouteDeclaration): DeclaredEndpoint[] {
  return mountedPaths(route).flatMap((path) =>
    route.methods
      .filter((method): method is 'get' | 'post' => method === 'get' || method === 'post')
      .map((method) => ({ name: `${method.toUpperCase()} ${path}`, service, method: method === 'get' ? 'GET' : 'POST', path, route })),
  );
}

/** The public endpoints (CONTRACT §2: the §4 endpoints and notification settings): every path and method of a route declared `cors`. */
export const PUBLIC_ENDPOINTS: readonly DeclaredEndpoint[] = PUBLIC_SERVICES.flatMap((service) =>
  DECLARED_ROUTES[service].filter((route) => route.cors === true).flatMap((route) => endpointsOf(service, route)),
);

/** Public endpoints whose answers come in JSON or XML (`outputFormat`, CONTRACT §2): an edge with XML and a 200 not declared JSON-only. */
export const JSON_XML_ENDPOINTS: readonly DeclaredEndpoint[] = PUBLIC_ENDPOINTS.filter(({ route }) => {
  const ok = route.responses[200];
  return route.edge.formats.includes('XML') && !(typeof ok === 'object' && ok.jsonOnly === true);
});

/** The CORS endpoints of a service, with their methods, as the kernel derives them from the declarations. */
export const corsEndpointsOf = (service: PublicService): Readonly<Record<string, readonly string[]>> =>
  corsEndpoints(DECLARED_ROUTES[service]);

/** The declared parameters through which a route takes the API key (or a token), read before the others (401 first). */
export const CREDENTIAL_PARAMS = ['apiKey', 'currentApiKey'] as const;

/** Whether the route takes a credential through one of `CREDENTIAL_PARAMS`. */
export function takesCredential(route: RouteDeclaration): boolean {
  return CREDENTIAL_PARAMS.some((name) => Object.hasOwn(route.params ?? {}, name));
}
