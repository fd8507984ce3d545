/**
 * Every route a service mounts is declared (issue 13): the routes on each service's express app
 * are exactly the operations of its generated /openapi.json and admin document, plus the kernel's operations
 * endpoints (`operationsRoutes`, declared in @platform/kernel). A route mounted beside the
 * declarations (`router.get(path, fn)`), or a declaration never mounted, fails here.
 *
 * The apps are built by each service's own `createApp`, over stand-in adapters: building an
 * app does no I/O, and no request is sent.
 */
import type { Express } from 'express';
import { createLogger } from '@platform/runtime';
import { operationsRoutes } from '@platform/kernel';
import { createApp as createAuthApp, loadConfig as loadAuthConfig, type AuthDeps } from '@platform/auth';
import { openapi as authDocument } from '@platform/auth/openapi';
import {
  createApp as createCategorizationApp,
  loadConfig as loadCategorizationConfig,
  type CategorizationDeps,
} from '@platform/categorization';
import { adminOpenapi as categorizationAdminDocument, openapi as categorizationDocument } from '@platform/categorization/openapi';
import { createApp as createNotifierApp, loadConfig as loadNotifierConfig, type NotifierDeps } from '@platform/notifier';
import { openapi as notifierDocument } from '@platform/notifier/openapi';
import { createApp as createUserApp, loadConfig as loadUserConfig, type UserDeps } from '@platform/user';
import { adminOpenapi as userAdminDocument, openapi as userDocument } from '@platform/user/openapi';

/** Stands in for any adapter: every member and every call is another stand-in; nothing is ever awaited on it. */
const anything: unknown = new Proxy(() => undefined, {
  get: (_target, key) => (key === 'then' ? undefined : anything),
  apply: () => anything,
  construct: () => anything as object,
});

/** A service's deps: a real logger, stand-ins for the rest. */
function standInDeps<T>(): T {
  const logger = createLogger({ service: 'declared-routes', level: 'error' });
  return new Proxy({}, { get: (_target, key) => (key === 'logger' ? logger : anything) }) as T;
}

const ENV = {
  ADMIN_TOKEN: 'declared-routes-admin-token-0123456789',
  SERVICE_JWT_SECRET: 'declared-routes-service-jwt-secret-0123456789',
  AUTH_URL: 'http://127.0.0.1:1',
};

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** `METHOD /path` of every route on the app, nested routers included; `:id` written `{id}` as in OpenAPI. */
function mountedRoutes(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: readonly Layer[]): void => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) {
          for (const [method, on] of Object.entries(layer.route.methods)) {
            if (on && method !== '_all') found.push(`${method.toUpperCase()} ${path.replace(/:(\w+)/g, '{$1}')}`);
          }
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return found;
}

/** `METHOD /path` of every operation of the documents. */
function documentedRoutes(documents: ReadonlyArray<Record<string, unknown>>): string[] {
  return documents.flatMap((document) => {
    const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
    return Object.entries(paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
  });
}

const KERNEL_OPERATIONS = operationsRoutes.flatMap((route) => route.paths.map((path) => `GET ${path}`));

const sorted = (values: Iterable<string>): string[] => [...new Set(values)].sort();

describe('every mounted route is declared and documented', () => {
  it.each<[string, () => Express, Array<Record<string, unknown>>]>([
    [
      'user',
      () => createUserApp(standInDeps<UserDeps>(), loadUserConfig(ENV, { requireInfrastructure: false })).app,
      [userDocument, userAdminDocument],
    ],
    ['auth', () => createAuthApp(standInDeps<AuthDeps>(), loadAuthConfig(ENV, { requireInfrastructure: false })).app, [authDocument]],
    [
      'categorization',
      () => createCategorizationApp(standInDeps<CategorizationDeps>(), loadCategorizationConfig(ENV, { requireInfrastructure: false })).app,
      [categorizationDocument, categorizationAdminDocument],
    ],
    [
      'notifier',
      () => createNotifierApp(standInDeps<NotifierDeps>(), loadNotifierConfig(ENV, { requireInfrastructure: false })).app,
      [notifierDocument],
    ],
  ])(
    'when the %s service’s app is built, then its routes are exactly its documents’ operations and the kernel’s',
    (_name, build, documents) => {
      const mounted = mountedRoutes(build());
      // The check itself must see routes: the kernel's are always there.
      expect(mounted).toEqual(expect.arrayContaining(KERNEL_OPERATIONS));
      expect(sorted(mounted)).toEqual(sorted([...documentedRoutes(documents), ...KERNEL_OPERATIONS]));
    },
  );
});
