import type { Router } from 'express';
import { absentIfEmpty, adminActor, adminEdge, declareRoute, fieldMessage, locals, mountRoute, respond } from '@platform/kernel';
import { AppError, isMailboxAddress, NUMERIC } from '@platform/wire';
import { z } from 'zod';
import type { CatalogueReads } from '../domain/catalogue';
import {
  DEFAULT_PAGE,
  MAX_PAGE,
  accountLedger,
  auditLog,
  patchAccount,
  rotateAccountKey,
  searchAccounts,
  type AccountPatch,
} from '../domain/operator';
import type { AccountSummary, AuditEntry, LedgerEntry, OperatorStore } from '../domain/operator-store';
import { DEFAULT_HISTORY_DAYS, MAX_HISTORY_DAYS, usageHistory, type UsageLedgerReads } from '../domain/usage-history';
import type { UserQueries } from '../domain/user-store';
import { accountIdPath, adminSecurity, ApiKey } from './schemas';

const BASE = '/admin/v1';
const ADMIN_401 = 'Missing or wrong admin token';
const RATE_429 = 'The address is over its failure limit (every admin call, until its window ends)';

const numericIn = (min: number, max: number) =>
  z
    .string()
    .regex(NUMERIC)
    .refine((value) => Number(value) >= min && Number(value) <= max)
    .transform(Number);
const limitParam = numericIn(1, MAX_PAGE)
  .optional()
  .transform((limit) => limit ?? DEFAULT_PAGE)
  .openapi({ description: `Items per page, 1–${MAX_PAGE} (default ${DEFAULT_PAGE}).` });
const cursorParam = z.string().max(200).optional().openapi({ description: 'The `nextCursor` of the previous page.' });
const paging = { limit: limitParam, cursor: cursorParam };
const nextCursor = z.string().nullable();

const AccountItem = z
  .object({ id: z.number().int(), email: z.string(), createdAt: z.string(), disabled: z.boolean() })
  .openapi('AdminAccountItem');
const LedgerItem = z
  .object({
    id: z.number().int(),
    productId: z.number().int(),
    delta: z.number().int(),
    credits: z.number().int(),
    cause: z.enum(['usage', 'top-up', 'adjustment', 'hold', 'release']),
    actor: z.string(),
    at: z.string(),
  })
  .openapi('LedgerItem');
const AuditItem = z
  .object({ at: z.string(), actor: z.string(), action: z.string(), accountId: z.number().int().nullable(), details: z.record(z.unknown()) })
  .openapi('AuditItem');
const DailyUsageItem = z
  .object({ date: z.string(), productId: z.number().int(), productName: z.string(), creditsUsed: z.number().int() })
  .openapi('AdminDailyUsage');

export const searchAccountsRoute = declareRoute({
  methods: ['get'],
  paths: [`${BASE}/accounts`],
  edge: adminEdge,
  summary: 'Search accounts (admin)',
  description: '`email` matches exactly (case-insensitive); `q` a substring of the e-mail, or the id. Newest first.',
  security: adminSecurity,
  params: {
    email: z.string().max(254).optional().openapi({ description: 'The exact e-mail (case-insensitive).' }),
    q: z.string().max(254).optional().openapi({ description: 'A substring of the e-mail, or an account id.' }),
    ...paging,
  },
  responses: {
    200: { description: 'A page of accounts', body: z.object({ data: z.array(AccountItem), nextCursor }) },
    401: ADMIN_401,
    422: 'Bad email, q, limit or cursor',
    429: RATE_429,
  },
});

/**
 * The body of `PATCH /admin/v1/accounts/{id}`: `email` and/or `disabled`, at least one; an empty
 * or null e-mail and a null `disabled` count as not given (CONTRACT §9).
 */
export const AccountPatchBody = z
  .object({
    email: absentIfEmpty(z.string().refine(isMailboxAddress).optional()).openapi({ type: 'string', format: 'email', maxLength: 254 }),
    disabled: z.boolean().nullish(),
  })
  .superRefine(({ email, disabled }, ctx) => {
    if (email === undefined && disabled == null) {
      ctx.addIssue({ code: 'custom', path: ['email'], ...fieldMessage('The email field is required when disabled is not present.') });
    }
  })
  .transform(({ email, disabled }): AccountPatch => ({
    ...(email === undefined ? {} : { email }),
    ...(disabled == null ? {} : { disabled }),
  }))
  .openapi({ example: { disabled: false } });

export const patchAccountRoute = declareRoute({
  methods: ['patch'],
  paths: [`${BASE}/accounts/{id}`],
  edge: adminEdge,
  summary: 'Change the e-mail, disable or enable an account (admin)',
  description:
    "A disabled account's key and tokens are refused at once everywhere (401); enabling gives the same key back, not its earlier tokens.",
  security: adminSecurity,
  pathParams: accountIdPath,
  document: AccountPatchBody,
  responses: {
    200: { description: 'The account', body: AccountItem },
    401: ADMIN_401,
    404: 'Unknown account',
    409: 'E-mail taken',
    422: 'Bad input',
    429: RATE_429,
    503: 'Token store or database unavailable; nothing changed',
  },
});

export const rotateAccountKeyRoute = declareRoute({
  methods: ['post'],
  paths: [`${BASE}/accounts/{id}/api-key`],
  edge: adminEdge,
  summary: "Rotate an account's API key (admin)",
  description: 'The old key and every token minted from it are refused at once; the new key is shown only here.',
  security: adminSecurity,
  pathParams: accountIdPath,
  responses: {
    200: { description: 'The new key', body: ApiKey },
    401: ADMIN_401,
    404: 'Unknown account',
    429: RATE_429,
    503: 'Token store or database unavailable; nothing was rotated',
  },
});

export const accountLedgerRoute = declareRoute({
  methods: ['get'],
  paths: [`${BASE}/accounts/{id}/ledger`],
  edge: adminEdge,
  summary: "An account's balance changes (admin)",
  description: 'Newest first; usage is one row per batch and pool.',
  security: adminSecurity,
  pathParams: accountIdPath,
  params: paging,
  responses: {
    200: { description: 'A page of ledger rows', body: z.object({ data: z.array(LedgerItem), nextCursor }) },
    401: ADMIN_401,
    404: 'Unknown account',
    422: 'Bad limit or cursor',
    429: RATE_429,
  },
});

export const accountUsageRoute = declareRoute({
  methods: ['get'],
  paths: [`${BASE}/accounts/{id}/usage`],
  edge: adminEdge,
  summary: "An account's usage per UTC day and product (admin)",
  security: adminSecurity,
  pathParams: accountIdPath,
  params: {
    days: numericIn(1, MAX_HISTORY_DAYS)
      .optional()
      .transform((days) => days ?? DEFAULT_HISTORY_DAYS)
      .openapi({ description: `Days to cover, 1–${MAX_HISTORY_DAYS} (default ${DEFAULT_HISTORY_DAYS}).` }),
  },
  responses: {
    200: { description: 'Usage per day and product', body: z.object({ data: z.array(DailyUsageItem) }) },
    401: ADMIN_401,
    404: 'Unknown account',
    422: 'Bad days',
    429: RATE_429,
  },
});

export const auditRoute = declareRoute({
  methods: ['get'],
  paths: [`${BASE}/audit`],
  edge: adminEdge,
  summary: 'Audit log: every admin write and every key rotation (admin)',
  security: adminSecurity,
  params: { accountId: numericIn(1, 2_147_483_647).optional().openapi({ description: 'Only this account.' }), ...paging },
  responses: {
    200: { description: 'A page of audit rows', body: z.object({ data: z.array(AuditItem), nextCursor }) },
    401: ADMIN_401,
    422: 'Bad accountId, limit or cursor',
    429: RATE_429,
  },
});

function accountView(account: AccountSummary) {
  return { id: account.id, email: account.email, createdAt: account.createdAt.toISOString(), disabled: account.disabled };
}

function ledgerView(entry: LedgerEntry) {
  // Usage rows carry no actor; rows written before actors were kept came from the one token there was.
  const actor = entry.actor ?? (entry.cause === 'usage' ? 'usage' : 'admin');
  const { id, productId, delta, credits, cause } = entry;
  return { id, productId, delta, credits, cause, actor, at: entry.at.toISOString() };
}

function auditView(entry: AuditEntry) {
  return { at: entry.at.toISOString(), actor: entry.actor, action: entry.action, accountId: entry.accountId, details: entry.details };
}

export interface OperatorDeps {
  store: UserQueries;
  operator: OperatorStore;
  catalogue: CatalogueReads;
  ledger: UsageLedgerReads;
}

async function existingAccount(store: UserQueries, id: number) {
  const account = await store.findAccount(id);
  if (!account) throw new AppError('not_found');
  return account;
}

/** The operator's routes (CONTRACT §7), mounted behind the admin guard by adminRoutes. */
export function mountOperatorRoutes(router: Router, deps: OperatorDeps): void {
  mountRoute(router, searchAccountsRoute, async (_req, res, request) => {
    const found = await searchAccounts(deps.operator, request.input());
    respond(res, 200, { data: found.data.map(accountView), nextCursor: found.nextCursor });
  });

  mountRoute(router, patchAccountRoute, async (_req, res, request) => {
    const { id } = await existingAccount(deps.store, request.path().id);
    const patch = request.input().document;
    const actor = adminActor(res);
    await patchAccount(deps.operator, id, patch, actor);
    locals(res).log.info('account changed', { accountId: id, actor, fields: Object.keys(patch) });
    respond(res, 200, accountView(await existingAccount(deps.store, id)));
  });

  mountRoute(router, rotateAccountKeyRoute, async (_req, res, request) => {
    const accountId = request.path().id;
    const actor = adminActor(res);
    const apiKey = await rotateAccountKey(deps.operator, accountId, actor);
    locals(res).log.info('api key rotated by an operator', { accountId, actor });
    res.setHeader('Cache-Control', 'no-store');
    respond(res, 200, { apiKey });
  });

  mountRoute(router, accountLedgerRoute, async (_req, res, request) => {
    const { id } = await existingAccount(deps.store, request.path().id);
    const found = await accountLedger(deps.operator, id, request.input());
    respond(res, 200, { data: found.data.map(ledgerView), nextCursor: found.nextCursor });
  });

  mountRoute(router, accountUsageRoute, async (_req, res, request) => {
    const { id } = await existingAccount(deps.store, request.path().id);
    const { days } = request.input();
    const items = await usageHistory(deps, id, { days, productId: undefined, now: new Date() });
    respond(res, 200, { data: items });
  });

  mountRoute(router, auditRoute, async (_req, res, request) => {
    const found = await auditLog(deps.operator, request.input());
    respond(res, 200, { data: found.data.map(auditView), nextCursor: found.nextCursor });
  });
}
