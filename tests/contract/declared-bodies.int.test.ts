/**
 * A route's declared body schema is its validator, nothing more and nothing less: for every
 * declared route that reads a JSON document, over HTTP,
 * - a body the schema refuses gets exactly the 422 the schema's verdict gives (every field it
 *   names, with the contract's messages, and no other), and
 * - a body the schema accepts is never refused for its shape (no 422): a check written by hand
 *   in the domain beyond the declaration fails here.
 * The bodies are the document's example (from the service's /openapi.json) with one member at a
 * time replaced by values of every JSON kind. A route declared later is covered without an edit.
 * No body is ever answered with a 5xx. Since the schema is also what those verdicts are read
 * from, the bounds the contract sets are written out by hand too (BOUNDS): a bound loosened or
 * tightened in a schema fails there.
 */
import { mountedPaths, validateDocument, type RouteDeclaration } from '@platform/kernel';
import { uniqueId } from '@platform/testing';
import { openapi as authDocument } from '@platform/auth/openapi';
import { adminOpenapi as categorizationAdminDocument, openapi as categorizationDocument } from '@platform/categorization/openapi';
import { adminOpenapi as userAdminDocument, openapi as userDocument } from '@platform/user/openapi';
import { ADMIN_TOKEN, bearer, serviceJwt, usePlatform, type HttpRequest } from './support';
import { DECLARED_ROUTES, type PublicService } from './support/declared-endpoints';

const { platform, send, freshKey } = usePlatform({ categorization: true });

/** Each service's documents: the public one and the admin one (admin and internal APIs). */
const DOCUMENTS: Readonly<Record<PublicService, ReadonlyArray<Record<string, unknown>>>> = {
  auth: [authDocument],
  user: [userDocument, userAdminDocument],
  categorization: [categorizationDocument, categorizationAdminDocument],
};

interface DocumentRoute {
  name: string;
  service: PublicService;
  method: 'POST' | 'PATCH';
  path: string;
  route: RouteDeclaration;
  example: Record<string, unknown>;
}

/** The JSON body schema an operation documents (following a component reference). */
function documentedBody(service: PublicService, path: string, method: string): { example?: unknown; properties?: object } {
  const document = DOCUMENTS[service].find((candidate) => (candidate.paths as Record<string, unknown>)[path] !== undefined) as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } }>>;
    components?: { schemas?: Record<string, Record<string, unknown>> };
  };
  const schema = document.paths[path]?.[method]?.requestBody?.content['application/json']?.schema ?? {};
  const ref = schema.$ref;
  return typeof ref === 'string' ? (document.components?.schemas?.[ref.split('/').pop() as string] ?? {}) : schema;
}

const DOCUMENT_ROUTES: DocumentRoute[] = (['auth', 'user', 'categorization'] as const).flatMap((service) =>
  DECLARED_ROUTES[service]
    .filter((route) => route.document !== undefined)
    .flatMap((route) => {
      const path = mountedPaths(route)[0] as string;
      return route.methods
        .filter((method): method is 'post' | 'patch' => method === 'post' || method === 'patch')
        .map((method) => ({
          name: `${method.toUpperCase()} ${path}`,
          service,
          method: method === 'post' ? ('POST' as const) : ('PATCH' as const),
          path,
          route,
          example: documentedBody(service, path, method).example as Record<string, unknown>,
        }));
    }),
);

/** One value of every JSON kind, and the edges of strings (empty, long, a control character). */
const VALUES: readonly unknown[] = [null, '', true, 0, -1, 1.5, '12', 'x'.repeat(1000), 'a\u0000b', ['x'], { a: 1 }];

/** The schema's verdict on a body (the kernel's reading of the declared document): the 422's messages, or undefined when it accepts it. */
function verdict(route: RouteDeclaration, body: Record<string, unknown>): Record<string, string[]> | undefined {
  const errors: Record<string, string[]> = {};
  if (route.document === undefined) return undefined;
  return validateDocument(route.document, body, errors).ok ? undefined : errors;
}

/** The request carrying `body` as the route's caller would send it: its credential, a real account in its path. */
async function requestFor(target: DocumentRoute, body: Record<string, unknown>): Promise<{ path: string; request: HttpRequest }> {
  const security = JSON.stringify(target.route.security ?? []);
  const json = { ...body };
  let query: Record<string, string> | undefined;
  let headers: Record<string, string> = {};
  if (/"admin(Token)?"/.test(security)) headers = bearer(ADMIN_TOKEN);
  else if (security.includes('serviceJwt')) headers = bearer(serviceJwt());
  if (Object.hasOwn(target.route.params ?? {}, 'apiKey')) query = { apiKey: await freshKey() };
  // The customer's credential a product service forwards is checked before the body (401 first).
  if (Object.hasOwn(json, 'credential')) json.credential = await freshKey();
  // The example's e-mail and requestId, when kept, are new each time: one already used answers 409
  // before the other members are read (and hides what they would have done).
  if (json.email === target.example.email && typeof json.email === 'string') json.email = `${uniqueId('bodies')}@example.test`;
  if (json.requestId === target.example.requestId && typeof json.requestId === 'string') json.requestId = uniqueId('bodies-');
  const path = target.path.includes('{id}') ? target.path.replace('{id}', String((await platform.account({ 1: 10 })).id)) : target.path;
  return { path, request: { method: target.method, headers, json, ...(query ? { query } : {}) } };
}

/**
 * What a reply is compared by: refused (a 422, with its body) or not, and a 5xx, never an answer
 * to a body whatever it is (its body shown when it is one).
 */
const verdictOf = (reply: { status: number; text: string }) => ({
  status: reply.status,
  refused: reply.status === 422,
  serverError: reply.status >= 500,
  body: reply.status === 422 || reply.status >= 500 ? reply.text : undefined,
});
const ACCEPTED = { status: expect.any(Number) as unknown, refused: false, serverError: false, body: undefined };

it('when the declarations are read, then every route with a JSON document is covered, each with an example its schema accepts', () => {
  expect(DOCUMENT_ROUTES.map((target) => target.name)).toEqual(
    expect.arrayContaining([
      'POST /admin/v1/accounts',
      'POST /admin/v1/accounts/{id}/credits',
      'PATCH /admin/v1/accounts/{id}',
      'POST /internal/v1/usage',
      'POST /user-service/notification-settings',
      'POST /admin/v1/categories',
    ]),
  );
  for (const target of DOCUMENT_ROUTES)
    expect({ route: target.name, verdict: verdict(target.route, target.example ?? {}) }).toEqual({
      route: target.name,
      verdict: undefined,
    });
});

describe.each(DOCUMENT_ROUTES)('the declared body of $name is its validator', (target) => {
  it('when the body is the documented example, then it is not refused for its shape', async () => {
    const { path, request } = await requestFor(target, target.example);
    const reply = await send(target.service, path, request);
    expect(verdictOf(reply)).toEqual(ACCEPTED);
  });

  const members = Object.keys(target.example ?? {}).filter((member) => member !== 'credential');
  it.each(members.flatMap((member) => VALUES.map((value): [string, unknown] => [member, value])))(
    'when %s is %j, then the answer is the schema’s verdict: its exact 422, or no 422',
    async (member, value) => {
      const body = { ...target.example, [member]: value };
      const expected = verdict(target.route, body);
      const { path, request } = await requestFor(target, body);
      const reply = await send(target.service, path, request);
      expect(verdictOf(reply)).toEqual(
        expected === undefined
          ? ACCEPTED
          : { status: 422, refused: true, serverError: false, body: JSON.stringify({ code: 422, messages: expected }) },
      );
    },
  );
});

const invalid = (field: string, words: string): Record<string, string[]> => ({ [field]: [`The selected ${words} is invalid.`] });
const MAX_AMOUNT = 1_000_000_000_000;
const MAX_ID = 2_147_483_647;

/**
 * The contract's bounds, by hand (CONTRACT §5, §6, §7, §9): each numeric member just outside its
 * range is refused with its exact 422, just inside is accepted (any answer but a 422 or a 5xx),
 * and a value of the wrong type is refused. `[route, member, value, 'accepted' or the messages]`.
 */
const BOUNDS: Array<[string, string, unknown, 'accepted' | Record<string, string[]>]> = [
  ['POST /internal/v1/usage', 'units', 0, invalid('units', 'units')],
  ['POST /internal/v1/usage', 'units', -1, invalid('units', 'units')],
  ['POST /internal/v1/usage', 'units', 1, 'accepted'],
  ['POST /internal/v1/usage', 'units', 10_000, 'accepted'],
  ['POST /internal/v1/usage', 'units', 10_001, invalid('units', 'units')],
  ['POST /internal/v1/usage', 'units', '-1', invalid('units', 'units')],
  ['POST /internal/v1/usage', 'units', 2.5, invalid('units', 'units')],
  ['POST /internal/v1/usage', 'units', true, invalid('units', 'units')],
  ['POST /internal/v1/usage', 'productId', 0, invalid('productId', 'product id')],
  ['POST /internal/v1/usage', 'productId', 1, 'accepted'],
  ['POST /internal/v1/usage', 'productId', MAX_ID + 1, invalid('productId', 'product id')],
  ['POST /internal/v1/usage', 'productId', 'one', invalid('productId', 'product id')],
  ['POST /internal/v1/usage', 'requestId', 'r'.repeat(200), 'accepted'],
  ['POST /internal/v1/usage', 'requestId', 'r'.repeat(201), invalid('requestId', 'request id')],
  ['POST /admin/v1/accounts/{id}/credits', 'amount', -MAX_AMOUNT - 1, invalid('amount', 'amount')],
  ['POST /admin/v1/accounts/{id}/credits', 'amount', -MAX_AMOUNT, 'accepted'],
  ['POST /admin/v1/accounts/{id}/credits', 'amount', MAX_AMOUNT, 'accepted'],
  ['POST /admin/v1/accounts/{id}/credits', 'amount', MAX_AMOUNT + 1, invalid('amount', 'amount')],
  ['POST /admin/v1/accounts/{id}/credits', 'amount', '-5', invalid('amount', 'amount')],
  ['POST /admin/v1/accounts/{id}/credits', 'productId', 0, invalid('productId', 'product id')],
  ['POST /admin/v1/accounts', 'credits', { 1: -1 }, invalid('credits.1', 'credits.1')],
  ['POST /admin/v1/accounts', 'credits', { 1: 0 }, 'accepted'],
  ['POST /admin/v1/accounts', 'credits', { 1: MAX_AMOUNT }, 'accepted'],
  ['POST /admin/v1/accounts', 'credits', { 1: MAX_AMOUNT + 1 }, invalid('credits.1', 'credits.1')],
  ['POST /admin/v1/accounts', 'credits', { 1: 'many' }, invalid('credits.1', 'credits.1')],
  [
    'POST /user-service/notification-settings',
    'lowBalanceAlert',
    { threshold: -1 },
    invalid('lowBalanceAlert.threshold', 'low balance alert.threshold'),
  ],
  ['POST /user-service/notification-settings', 'lowBalanceAlert', { threshold: 0 }, 'accepted'],
  ['POST /user-service/notification-settings', 'lowBalanceAlert', { threshold: 1_000_000_000 }, 'accepted'],
  [
    'POST /user-service/notification-settings',
    'lowBalanceAlert',
    { threshold: 1_000_000_001 },
    invalid('lowBalanceAlert.threshold', 'low balance alert.threshold'),
  ],
  [
    'POST /user-service/notification-settings',
    'lowBalanceAlert',
    { threshold: 'x' },
    invalid('lowBalanceAlert.threshold', 'low balance alert.threshold'),
  ],
  ['POST /admin/v1/categories', 'name', 'n'.repeat(255), 'accepted'],
  ['POST /admin/v1/categories', 'name', 'n'.repeat(256), { name: ['The name may not be greater than 255 characters.'] }],
];

describe('the contract’s bounds, written out by hand', () => {
  it.each(BOUNDS)('%s: when %s is %j, then the answer is %j', async (name, member, value, expected) => {
    const target = DOCUMENT_ROUTES.find((candidate) => candidate.name === name) as DocumentRoute;
    const { path, request } = await requestFor(target, { ...target.example, [member]: value });
    const reply = await send(target.service, path, request);
    expect(verdictOf(reply)).toEqual(
      expected === 'accepted'
        ? ACCEPTED
        : { status: 422, refused: true, serverError: false, body: JSON.stringify({ code: 422, messages: expected }) },
    );
  });
});
