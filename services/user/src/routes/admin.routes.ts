import {
  absentIfEmpty,
  adminActor,
  adminEdge,
  declareRoute,
  locals,
  mountRoute,
  mountAdminDocument,
  requireAdminToken,
  respond,
  routeGroup,
  type NamedAdminToken,
} from '@platform/kernel';
import type { FailureLimit } from '@platform/credentials';
import { isMailboxAddress, NUMERIC } from '@platform/wire';
import { z } from 'zod';
import { accountDetails, addCredits, createAccount, MAX_AMOUNT, type NewAccount } from '../domain/accounts';
import { MAX_ID } from '../domain/integer-field';
import { MAX_REASON } from '../domain/operator';
import type { UserStore } from '../domain/user-store';
import type { WebhookStore } from '../domain/webhooks';
import { operatorRoutes, type OperatorRouteUses } from './operator.routes';
import { adminProductRoutes } from './admin-products.routes';
import { ADMIN_LISTED_ATTEMPTS, AdminAccount, adminAccountView } from './admin-account-view';
import { ADMIN_READ_ONLY, accountIdPath, adminSecurity, integerMember, requiredInteger } from './schemas';

const BASE = '/admin/v1';
const ADMIN_401 = 'Missing or wrong admin token';

/** An e-mail of the admin API: required (null and '' count as not given), a mailbox address. */
export const accountEmail = absentIfEmpty(z.string().refine(isMailboxAddress)).openapi({ type: 'string', format: 'email', maxLength: 254 });

const productKey = z
  .string()
  .regex(NUMERIC)
  .transform(Number)
  .refine((id) => id >= 1 && id <= MAX_ID);
const initialAmount = integerMember(0, MAX_AMOUNT);

/**
 * `credits` of a new account: product id (a numeric key) → initial credits (0..10^12, numeric
 * strings allowed). A key that is no product id is a bad `credits`; a bad amount is reported
 * under `credits.<product id>`. Whether the ids are in the catalogue, and in distinct pools, is
 * the domain's to say.
 */
const initialCredits = z
  .record(z.unknown())
  .transform((raw, ctx) => {
    const credits = new Map<number, number>();
    for (const [key, value] of Object.entries(raw)) {
      const productId = productKey.safeParse(key);
      const amount = initialAmount.safeParse(value);
      if (!productId.success) ctx.addIssue({ code: 'custom' });
      else if (!amount.success) ctx.addIssue({ code: 'custom', path: [String(productId.data)] });
      else credits.set(productId.data, amount.data);
    }
    return credits;
  })
  .nullish()
  .openapi({
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT },
    description: 'Product id → initial credits of its pool (numeric strings allowed); at most one product per pool.',
  });

/** The body of `POST /admin/v1/accounts` (CONTRACT §7, §9); every problem is reported together. */
export const NewAccountBody = z
  .object({ email: accountEmail, credits: initialCredits })
  .transform(({ email, credits }): NewAccount => ({ email, credits: credits ?? new Map<number, number>() }))
  .openapi({ example: { email: 'ann@example.com', credits: { '1': 100, '14': 50 } } });

/** The body of `POST /admin/v1/accounts/{id}/credits`; a negative amount arrives as a JSON number (CONTRACT §9). */
export const CreditChangeBody = z
  .object({
    productId: requiredInteger(1, MAX_ID).openapi({ description: 'Catalogue product id (numeric strings allowed).' }),
    amount: requiredInteger(-MAX_AMOUNT, MAX_AMOUNT).openapi({ description: 'Positive: a top-up; negative: an adjustment, clamped at 0.' }),
    // NUL is refused: Postgres text cannot hold it (the audit insert would fail, a 500).
    reason: absentIfEmpty(
      z
        .string()
        .max(MAX_REASON)
        .refine((reason) => !reason.includes('\u0000'))
        .optional(),
    ).openapi({ description: 'Kept in the audit row.' }),
  })
  .openapi({ example: { productId: 1, amount: 500, reason: 'goodwill' } });

/** The answers of the routes below (CONTRACT §7), so that generated clients type them. */
const CreatedAccount = z
  .object({ id: z.number().int(), email: z.string(), apiKey: z.string(), createdAt: z.string().datetime() })
  .openapi('CreatedAccount');
const PoolCredits = z.object({ productId: z.number().int(), credits: z.number().int().min(0) }).openapi('PoolCredits');

/** `POST /admin/v1/accounts`: the body's shape is its schema's; the catalogue's (ids, pools) the domain's. */
export const createAccountRoute = declareRoute({
  methods: ['post'],
  paths: [`${BASE}/accounts`],
  edge: adminEdge,
  accountData: true,
  summary: 'Create an account (admin)',
  security: adminSecurity,
  document: NewAccountBody,
  responses: {
    201: { description: 'Created; the API key is shown only here', body: CreatedAccount },
    401: ADMIN_401,
    403: ADMIN_READ_ONLY,
    409: 'E-mail taken',
    422: 'Bad input',
  },
});

export const showAccountRoute = declareRoute({
  methods: ['get'],
  paths: [`${BASE}/accounts/{id}`],
  edge: adminEdge,
  accountData: true,
  summary: 'Show an account (admin)',
  security: adminSecurity,
  pathParams: accountIdPath,
  responses: {
    200: {
      description: 'The account, its balances, notification settings (no webhook secret) and last webhook deliveries',
      body: AdminAccount,
    },
    401: ADMIN_401,
    404: 'Unknown account',
  },
});

export const changeCreditsRoute = declareRoute({
  methods: ['post'],
  paths: [`${BASE}/accounts/{id}/credits`],
  edge: adminEdge,
  accountData: true,
  summary: 'Top up (positive amount) or adjust (negative, clamped at 0) a pool (admin)',
  security: adminSecurity,
  pathParams: accountIdPath,
  document: CreditChangeBody,
  responses: {
    200: { description: "The pool's credits after the change", body: PoolCredits },
    401: ADMIN_401,
    403: ADMIN_READ_ONLY,
    404: 'Unknown account',
    422: 'Bad input',
  },
});

export interface AdminRouteUses extends OperatorRouteUses {
  store: UserStore;
  webhooks: WebhookStore;
  /** BRAND_NAME, which the console shows. */
  brandName: string;
  /** ADMIN_TOKEN / ADMIN_TOKENS: who may call, and with which role. */
  adminTokens: readonly NamedAdminToken[];
  /** Failed admin-token attempts per client address (CONTRACT §9). */
  adminFailures: FailureLimit;
  /** The admin document (served at /admin/v1/openapi.json, behind the guard). */
  document: Record<string, unknown>;
}

/**
 * The operator's admin API (CONTRACT §7): accounts, top-ups and adjustments, search, disabling,
 * rotation, ledger and audit, the catalogue; every path behind the admin guard.
 */
export const adminRoutes = routeGroup<AdminRouteUses>({
  routes: [createAccountRoute, showAccountRoute, changeCreditsRoute, ...operatorRoutes.routes, ...adminProductRoutes.routes],
  mount(router, deps) {
    const { store } = deps;
    router.use(BASE, requireAdminToken(deps.adminTokens, { failures: deps.adminFailures }));
    mountAdminDocument(router, deps.document);

    mountRoute(router, createAccountRoute, async (_req, res, request) => {
      const actor = adminActor(res);
      const { account, apiKey } = await createAccount(store, request.input().document, actor);
      locals(res).log.info('account created', { accountId: account.id, actor });
      respond(res, 201, { id: account.id, email: account.email, apiKey, createdAt: account.createdAt.toISOString() });
    });

    mountRoute(router, showAccountRoute, async (_req, res, request) => {
      const { account, balances } = await accountDetails(store, request.path().id);
      const [settings, attempts] = await Promise.all([
        store.readNotificationSettings(account.id),
        deps.webhooks.listAttempts(account.id, ADMIN_LISTED_ATTEMPTS),
      ]);
      respond(res, 200, adminAccountView({ account, balances, settings, attempts }));
    });

    mountRoute(router, changeCreditsRoute, async (_req, res, request) => {
      const accountId = request.path().id;
      const actor = adminActor(res);
      // The body is read once the account is known (404 before 422).
      const result = await addCredits(store, accountId, () => request.input().document, actor);
      locals(res).log.info('credits changed', { accountId, productId: result.productId, amount: result.amount, actor });
      respond(res, 200, { productId: result.productId, credits: result.credits });
    });
    operatorRoutes.mount(router, deps);
    adminProductRoutes.mount(router, deps);
  },
});
