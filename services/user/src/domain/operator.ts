import { AppError, invalidMessage, throwIfInvalid, type FieldMessages } from '@platform/wire';
import { generateApiKey, hashSecret } from '@platform/credentials';
import { replaceKey, type AccountChange } from './account-change';
import { EMAIL_TAKEN } from './accounts';
import { decodeCursor, page, type Page } from './paging';
import type { AccountSearch, AccountSummary, AuditEntry, AuditFilter, LedgerEntry, OperatorStore } from './operator-store';

export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 100;
/** Longest reason an operator may give for a top-up or an adjustment. */
export const MAX_REASON = 500;

/** Paging as the routes validated it (`limit` 1–100, default 20); the cursor is decoded here. */
export interface PageQuery {
  limit: number;
  cursor?: string | undefined;
}

/** The id the cursor names (undefined: the first page); a cursor not of ours is a 422. */
function beforeOf(query: PageQuery, errors: FieldMessages): number | undefined {
  if (query.cursor === undefined || query.cursor === '') return undefined;
  const before = decodeCursor(query.cursor);
  if (before === undefined) errors.cursor = [invalidMessage('cursor')];
  return before;
}

/** `GET /admin/v1/accounts?email=&q=&limit=&cursor=`: newest first. */
export async function searchAccounts(
  store: OperatorStore,
  query: PageQuery & {
    email?: string | undefined;
    q?: string | undefined;
    status?: AccountSearch['status'] | undefined;
    balance?: AccountSearch['balance'] | undefined;
  },
): Promise<Page<AccountSummary>> {
  const errors: FieldMessages = {};
  const before = beforeOf(query, errors);
  throwIfInvalid(errors);
  const search: Omit<AccountSearch, 'limit'> = {
    ...(query.email === undefined || query.email === '' ? {} : { email: query.email }),
    ...(query.q === undefined || query.q === '' ? {} : { q: query.q }),
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.balance === undefined ? {} : { balance: query.balance }),
    ...(before === undefined ? {} : { before }),
  };
  return page(query.limit, (size) => store.searchAccounts({ ...search, limit: size }));
}

/** A change of an account, as the route's schema read it (`AccountPatchBody`). */
export interface AccountPatch {
  email?: string;
  disabled?: boolean;
}

/**
 * Changes an account's e-mail and/or disables or enables it (CONTRACT §7), with its audit row in
 * the same transaction. Disabling closes access before the commit (the key's record removed, the
 * generation raised: every token minted before stays refused); enabling reactivates the key and
 * writes its record after the commit (CONTRACT §3).
 */
export async function patchAccount(store: OperatorStore, accountId: number, patch: AccountPatch, actor: string): Promise<void> {
  await store.accounts.transaction('operator', async (tx) => {
    const account = await tx.lockAccount(accountId);
    if (!account) throw new AppError('not_found');
    const details: Record<string, unknown> = {};
    const changes: AccountChange[] = [];
    if (patch.email !== undefined && patch.email !== account.email) {
      if (await tx.emailTaken(accountId, patch.email)) throw new AppError('conflict', { message: EMAIL_TAKEN });
      changes.push({ kind: 'email', accountId, email: patch.email });
      details.email = { from: account.email, to: patch.email };
    }
    if (patch.disabled !== undefined && patch.disabled !== account.disabled) {
      changes.push({ kind: patch.disabled ? 'disabled' : 'enabled', key: account.key });
      details.disabled = patch.disabled;
    }
    if (changes.length > 0) await tx.apply(changes, { actor, action: 'account.update', accountId, details });
  });
}

/**
 * The operator's rotation of a leaked key (CONTRACT §7, §4.4 revocation): the old key's record is
 * removed before the commit, the new key's written after it. A disabled account gets its new key
 * inactive (an enabling brings that one back).
 */
export async function rotateAccountKey(store: OperatorStore, accountId: number, actor: string): Promise<string> {
  const apiKey = generateApiKey();
  const newKeyHash = hashSecret(apiKey);
  await store.accounts.transaction('operator', async (tx) => {
    const account = await tx.lockAccount(accountId);
    if (!account) throw new AppError('not_found');
    await tx.apply(replaceKey(account.key, newKeyHash, !account.disabled), { actor, action: 'api-key.rotate', accountId, details: {} });
  });
  return apiKey;
}

/** `GET /admin/v1/accounts/:id/ledger`: every balance change, newest first. */
export async function accountLedger(store: OperatorStore, accountId: number, query: PageQuery): Promise<Page<LedgerEntry>> {
  const errors: FieldMessages = {};
  const before = beforeOf(query, errors);
  throwIfInvalid(errors);
  return page(query.limit, (size) => store.ledgerPage(accountId, before, size));
}

/** The audit log's filters as the route validated them (undefined: not given). */
export type AuditQuery = { [K in keyof AuditFilter]?: AuditFilter[K] | undefined };

/** The filter without its absent members; a `to` not after `from` selects nothing and is refused (422). */
function auditFilter(query: AuditQuery, errors: FieldMessages): AuditFilter {
  if (query.from !== undefined && query.to !== undefined && query.to <= query.from) errors.to = [invalidMessage('to')];
  const filter: AuditFilter = {};
  for (const key of ['accountId', 'actor', 'action', 'from', 'to'] as const)
    if (query[key] !== undefined) Object.assign(filter, { [key]: query[key] });
  return filter;
}

/** `GET /admin/v1/audit?accountId=&actor=&action=&from=&to=&limit=&cursor=`: newest first. */
export async function auditLog(store: OperatorStore, query: PageQuery & AuditQuery): Promise<Page<AuditEntry>> {
  const errors: FieldMessages = {};
  const before = beforeOf(query, errors);
  const filter = auditFilter(query, errors);
  throwIfInvalid(errors);
  return page(query.limit, (size) => store.auditPage(filter, before, size));
}

/** Rows per read of an export: each is one keyset page, so an export of any size holds one page in memory. */
export const EXPORT_BATCH = 500;

/** Every row a keyset reader gives, newest first, read `EXPORT_BATCH` at a time (CSV exports). */
export async function* everyRow<T extends { id: number }>(
  read: (before: number | undefined, limit: number) => Promise<T[]>,
): AsyncGenerator<T[]> {
  let before: number | undefined;
  for (;;) {
    const rows = await read(before, EXPORT_BATCH);
    if (rows.length > 0) yield rows;
    const last = rows[rows.length - 1];
    if (rows.length < EXPORT_BATCH || last === undefined) return;
    before = last.id;
  }
}

/** The audit rows of an export: the filter checked as for a page (422 before anything is sent). */
export function auditExport(store: OperatorStore, query: AuditQuery): AsyncGenerator<AuditEntry[]> {
  const errors: FieldMessages = {};
  const filter = auditFilter(query, errors);
  throwIfInvalid(errors);
  return everyRow((before, limit) => store.auditPage(filter, before, limit));
}
