/** The operator's admin routes as declared (CONTRACT §7): their parameters, bodies and answers. */
import { absentIfEmpty, adminEdge, declareRoute, fieldMessage } from '@platform/kernel';
import { isMailboxAddress, NUMERIC } from '@platform/wire';
import { z } from 'zod';
import { DEFAULT_PAGE, MAX_PAGE, type AccountPatch } from '../domain/operator';
import { DEFAULT_HISTORY_DAYS, MAX_HISTORY_DAYS } from '../domain/usage-history';
import { csvMedia, formatParam } from './csv';
import { ADMIN_READ_ONLY, accountIdPath, adminSecurity, ApiKey } from './schemas';

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

/** Every action the audit log holds (CONTRACT §7), the categorization service's included. */
export const AUDIT_ACTIONS = [
  'account.create',
  'account.update',
  'credits.top-up',
  'credits.adjust',
  'api-key.rotate',
  'category.create',
  'category.delete',
] as const;
/** An admin token's name (ADMIN_TOKENS) or `account`. */
const ACTOR = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
// A date (UTC midnight) or a date-time with its offset; anything Date.parse reads loosely is refused.
const instantParam = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/)
  .refine((value) => !Number.isNaN(Date.parse(value)))
  .transform((value) => new Date(value))
  .optional();

export const LEDGER_COLUMNS = ['id', 'productId', 'delta', 'credits', 'cause', 'actor', 'at'] as const;
export const AUDIT_COLUMNS = ['at', 'actor', 'action', 'accountId', 'details'] as const;
const nextCursor = z.string().nullable();

export const AccountItem = z
  .object({ id: z.number().int(), email: z.string(), createdAt: z.string(), disabled: z.boolean() })
  .openapi('AdminAccountItem');
const AccountPoolItem = z
  .object({
    pool: z.array(z.number().int()).openapi({ description: 'The product ids of the pool, ascending.' }),
    credits: z.number().int(),
  })
  .openapi('AdminAccountPool');
const SearchItem = AccountItem.extend({ pools: z.array(AccountPoolItem) }).openapi('AdminAccountSearchItem');
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
  accountData: true,
  summary: 'Search accounts (admin)',
  description:
    '`email` matches exactly (case-insensitive); `q` a substring of the e-mail, or the id; `status` and `balance` filter. Newest first.',
  security: adminSecurity,
  params: {
    email: z.string().max(254).optional().openapi({ description: 'The exact e-mail (case-insensitive).' }),
    q: z.string().max(254).optional().openapi({ description: 'A substring of the e-mail, or an account id.' }),
    status: z.enum(['active', 'disabled']).optional().openapi({ description: 'Only enabled (`active`) or disabled accounts.' }),
    balance: z
      .enum(['low', 'empty'])
      .optional()
      .openapi({ description: "`low`: some pool below the account's low threshold; `empty`: some pool at 0." }),
    ...paging,
  },
  responses: {
    200: { description: "A page of accounts, each with its pools' credits", body: z.object({ data: z.array(SearchItem), nextCursor }) },
    401: ADMIN_401,
    422: 'Bad email, q, status, balance, limit or cursor',
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
  accountData: true,
  summary: 'Change the e-mail, disable or enable an account (admin)',
  description:
    "A disabled account's key and tokens are refused at once everywhere (401); enabling gives the same key back, not its earlier tokens.",
  security: adminSecurity,
  pathParams: accountIdPath,
  document: AccountPatchBody,
  responses: {
    200: { description: 'The account', body: AccountItem },
    401: ADMIN_401,
    403: ADMIN_READ_ONLY,
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
  accountData: true,
  summary: "Rotate an account's API key (admin)",
  description: 'The old key and every token minted from it are refused at once; the new key is shown only here.',
  security: adminSecurity,
  pathParams: accountIdPath,
  responses: {
    200: { description: 'The new key', body: ApiKey },
    401: ADMIN_401,
    403: ADMIN_READ_ONLY,
    404: 'Unknown account',
    429: RATE_429,
    503: 'Token store or database unavailable; nothing was rotated',
  },
});

export const accountLedgerRoute = declareRoute({
  methods: ['get'],
  paths: [`${BASE}/accounts/{id}/ledger`],
  edge: adminEdge,
  accountData: true,
  summary: "An account's balance changes (admin)",
  description: 'Newest first; usage is one row per batch and pool.',
  security: adminSecurity,
  pathParams: accountIdPath,
  params: { ...paging, format: formatParam },
  responses: {
    200: {
      description: 'A page of ledger rows',
      body: z.object({ data: z.array(LedgerItem), nextCursor }),
      media: csvMedia(LEDGER_COLUMNS),
    },
    401: ADMIN_401,
    404: 'Unknown account',
    422: 'Bad limit, cursor or format',
    429: RATE_429,
  },
});

export const accountUsageRoute = declareRoute({
  methods: ['get'],
  paths: [`${BASE}/accounts/{id}/usage`],
  edge: adminEdge,
  accountData: true,
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
  accountData: true,
  summary: 'Audit log: every admin write (categories included) and every key rotation (admin)',
  security: adminSecurity,
  params: {
    accountId: numericIn(1, 2_147_483_647).optional().openapi({ description: 'Only this account.' }),
    actor: z.string().regex(ACTOR).optional().openapi({ description: "Only this actor (an admin token's name, or `account`)." }),
    action: z.enum(AUDIT_ACTIONS).optional().openapi({ description: 'Only this action.' }),
    from: instantParam.openapi({ description: 'Only rows at or after this instant (ISO 8601 date or date-time with offset).' }),
    to: instantParam.openapi({ description: 'Only rows before this instant (after `from`).' }),
    ...paging,
    format: formatParam,
  },
  responses: {
    200: { description: 'A page of audit rows', body: z.object({ data: z.array(AuditItem), nextCursor }), media: csvMedia(AUDIT_COLUMNS) },
    401: ADMIN_401,
    422: 'Bad accountId, actor, action, from, to, limit, cursor or format',
    429: RATE_429,
  },
});
