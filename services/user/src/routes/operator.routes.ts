import { adminActor, locals, mountRoute, respond, routeGroup } from '@platform/kernel';
import { AppError } from '@platform/wire';
import type { CatalogueReads } from '../domain/catalogue';
import { accountLedger, auditExport, auditLog, everyRow, patchAccount, rotateAccountKey, searchAccounts } from '../domain/operator';
import type { AccountPool, AccountSummary, AuditEntry, LedgerEntry, OperatorStore } from '../domain/operator-store';
import { usageHistory, type UsageLedgerReads } from '../domain/usage-history';
import type { UserQueries } from '../domain/user-store';
import {
  AUDIT_COLUMNS,
  LEDGER_COLUMNS,
  accountLedgerRoute,
  accountUsageRoute,
  auditRoute,
  patchAccountRoute,
  rotateAccountKeyRoute,
  searchAccountsRoute,
} from './operator-declarations';
import { streamCsv } from './csv';

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

export interface OperatorRouteUses {
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
export const operatorRoutes = routeGroup<OperatorRouteUses>({
  routes: [searchAccountsRoute, patchAccountRoute, rotateAccountKeyRoute, accountLedgerRoute, accountUsageRoute, auditRoute],
  mount(router, deps) {
    mountRoute(router, searchAccountsRoute, async (_req, res, request) => {
      const found = await searchAccounts(deps.operator, request.input());
      const pools = await deps.operator.poolsOf(found.data.map((account) => account.id));
      const { byPool } = await deps.catalogue.current();
      const poolView = ({ poolId, credits }: AccountPool) => ({
        pool: (byPool.get(poolId) ?? [{ id: poolId }]).map((product) => product.id),
        credits,
      });
      const data = found.data.map((account) => ({ ...accountView(account), pools: (pools.get(account.id) ?? []).map(poolView) }));
      respond(res, 200, { data, nextCursor: found.nextCursor });
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
      respond(res, 200, { apiKey });
    });

    mountRoute(router, accountLedgerRoute, async (_req, res, request) => {
      const { id } = await existingAccount(deps.store, request.path().id);
      const input = request.input();
      if (input.format === 'csv') {
        const rows = everyRow((before, limit) => deps.operator.ledgerPage(id, before, limit));
        return streamCsv(res, `ledger-${id}.csv`, LEDGER_COLUMNS, rows, (entry) => {
          const view = ledgerView(entry);
          return LEDGER_COLUMNS.map((column) => view[column]);
        });
      }
      const found = await accountLedger(deps.operator, id, input);
      respond(res, 200, { data: found.data.map(ledgerView), nextCursor: found.nextCursor });
    });

    mountRoute(router, accountUsageRoute, async (_req, res, request) => {
      const { id } = await existingAccount(deps.store, request.path().id);
      const { days } = request.input();
      const items = await usageHistory(deps, id, { days, productId: undefined, now: new Date() });
      respond(res, 200, { data: items });
    });

    mountRoute(router, auditRoute, async (_req, res, request) => {
      const input = request.input();
      if (input.format === 'csv') {
        return streamCsv(res, 'audit.csv', AUDIT_COLUMNS, auditExport(deps.operator, input), (entry) => {
          const { at, actor, action, accountId, details } = auditView(entry);
          return [at, actor, action, accountId, JSON.stringify(details)];
        });
      }
      const found = await auditLog(deps.operator, input);
      respond(res, 200, { data: found.data.map(auditView), nextCursor: found.nextCursor });
    });
  },
});
