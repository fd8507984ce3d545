/**
 * The route declarations are the response types too (issue 13; Unkey's routes are the model):
 * every JSON answer the contract suite gets from a declared route, with a status the route
 * declares, must match the declared schema — the route's own body, or its edge's error
 * envelope. An answer that drifts from the generated /openapi.json fails the test that saw it.
 * Statuses a route does not declare (the kernel's 400/413/429/503 on every route) and XML bodies
 * (pinned byte for byte by the suites) are not checked here.
 */
import { ENVELOPE_SCHEMAS, mountedPaths, type RouteDeclaration } from '@platform/kernel';
import { DECLARED_ROUTES as ROUTES } from './declared-endpoints';
import type { ServiceName } from './fixture';
import type { Reply } from './http';

/** `/admin/v1/accounts/{id}` → a pattern of the concrete path. */
const templatePattern = (template: string): RegExp =>
  new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);

function declarationOf(service: ServiceName, method: string, path: string): RouteDeclaration | undefined {
  const verb = method.toLowerCase();
  return ROUTES[service].find(
    (route) =>
      route.methods.some((declared) => declared === verb) && mountedPaths(route).some((template) => templatePattern(template).test(path)),
  );
}

/** Throws when a JSON answer of a declared route and status does not match its declared schema. */
export function checkDeclaredAnswer(service: ServiceName, method: string, path: string, reply: Reply): void {
  if (!reply.type?.startsWith('application/json')) return;
  const declaration = declarationOf(service, method, path.split('?', 1)[0] as string);
  const answer = declaration?.responses[reply.status];
  if (declaration === undefined || answer === undefined) return;
  const schema = typeof answer === 'string' ? ENVELOPE_SCHEMAS[declaration.edge.envelope] : answer.body;
  if (schema === undefined) return;
  const parsed = schema.safeParse(reply.json());
  if (!parsed.success) {
    throw new Error(
      `${method} ${path} answered ${reply.status} with a body its declaration does not describe: ` +
        `${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`).join('; ')}\n${reply.text.slice(0, 500)}`,
    );
  }
}
