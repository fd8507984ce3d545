import { NUMERIC } from '@platform/wire';
import { declareRoute, mountRoute, publicEdge, respond, routeGroup } from '@platform/kernel';
import { presentedCredential, type CredentialVerifier } from '@platform/credentials';
import { z } from 'zod';
import type { CatalogueReads } from '../domain/catalogue';
import type { CreditHistoryReads } from '../domain/credit-history';
import { decodeCursor, pageOf } from '../domain/paging';
import { apiKeyParam, customerSecurity } from './schemas';

export const CREDIT_HISTORY_PATH = '/user-service/credit-history';
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/** `cursor`: the opaque `nextCursor` of the previous page (domain/paging.ts). */
const cursorParam = z
  .string()
  .max(40)
  .transform((cursor, ctx) => {
    const id = decodeCursor(cursor);
    if (id === undefined) {
      ctx.addIssue({ code: 'custom' });
      return z.NEVER;
    }
    return id;
  })
  .optional()
  .openapi({ type: 'string', description: 'The `nextCursor` of the previous page.' });

const limitParam = z
  .string()
  .regex(NUMERIC)
  .refine((value) => Number(value) >= 1 && Number(value) <= MAX_LIMIT)
  .transform(Number)
  .optional()
  .transform((limit) => limit ?? DEFAULT_LIMIT)
  .openapi({ type: 'string', description: `Items per page, 1–${MAX_LIMIT} (default ${DEFAULT_LIMIT}).` });

const CreditHistoryItem = z
  .object({
    at: z.string(),
    productId: z.number().int(),
    product: z.object({ id: z.number().int(), name: z.string() }),
    delta: z.number().int(),
    credits: z.number().int().openapi({ description: "The pool's credits after the change." }),
    cause: z.enum(['top-up', 'adjustment']),
  })
  .openapi('CreditHistoryItem');

/** `GET|POST /user-service/credit-history` (CONTRACT §4.8): the account's top-ups and adjustments, newest first. */
export const creditHistoryRoute = declareRoute({
  cors: true,
  accountData: true,
  methods: ['get', 'post'],
  paths: [CREDIT_HISTORY_PATH],
  edge: publicEdge,
  summary: 'Credit history',
  description: "The account's top-ups and adjustments (not usage: that is the usage history), newest first, paged by `cursor`.",
  security: customerSecurity,
  params: { apiKey: apiKeyParam, limit: limitParam, cursor: cursorParam },
  responses: {
    200: {
      description: 'A page of top-ups and adjustments',
      body: z.object({ data: z.array(CreditHistoryItem), nextCursor: z.string().nullable() }).openapi('CreditHistory'),
    },
    401: 'Missing or bad credential',
    422: 'Bad limit, cursor or outputFormat',
  },
});

export interface CreditHistoryRouteUses {
  accountCredentials: CredentialVerifier;
  creditHistory: CreditHistoryReads;
  catalogue: CatalogueReads;
}

export const creditHistoryRoutes = routeGroup<CreditHistoryRouteUses>({
  routes: [creditHistoryRoute],
  mount: (router, { accountCredentials, creditHistory, catalogue }) =>
    mountRoute(router, creditHistoryRoute, async (req, res, request) => {
      const principal = await accountCredentials.require(presentedCredential(req, request.params));
      const { limit, cursor } = request.input();
      const [rows, { byId }] = await Promise.all([
        creditHistory.page(principal.accountId, cursor, limit + 1),
        Promise.resolve(catalogue.current()),
      ]);
      const page = pageOf(rows, limit, (row) => row.id);
      respond(res, 200, {
        data: page.data.map((row) => ({
          at: row.at.toISOString(),
          productId: row.productId,
          product: { id: row.productId, name: byId.get(row.productId)?.name ?? `Product ${row.productId}` },
          delta: row.delta,
          credits: row.credits,
          cause: row.cause,
        })),
        nextCursor: page.nextCursor,
      });
    }),
});
