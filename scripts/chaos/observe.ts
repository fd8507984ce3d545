/**
 * What the run reads once the cluster is healed: each account's pool and ledger straight from
 * the Postgres primary (DATABASE_DIRECT_URL), and the alerts the SMTP capture and the webhook
 * receiver got, by account.
 */
import type { Pool } from 'pg';
import type { SmtpCapture, WebhookReceiver } from '@platform/testing';
import type { AccountModel } from './api';
import type { AccountEnd, AlertKind, FinalState, LedgerRow } from './history';

/** The default low-balance threshold (CONTRACT §6): the workload leaves it as it is. */
const THRESHOLD = 10;

export async function readAccounts(pool: Pool, accounts: readonly AccountModel[]): Promise<AccountEnd[]> {
  const ids = accounts.map((account) => account.id);
  const pools = await pool.query<{ account_id: number; credits: string }>(
    'SELECT b.account_id, b.credits FROM pool_balances b JOIN products p ON p.pool_id = b.pool_id WHERE p.id = 1 AND b.account_id = ANY($1)',
    [ids],
  );
  const ledger = await pool.query<{
    account_id: number;
    cause: LedgerRow['cause'];
    delta: string;
    credits_after: string;
    request_id: string | null;
  }>('SELECT account_id, cause, delta, credits_after, request_id FROM credit_ledger WHERE account_id = ANY($1) ORDER BY id', [ids]);
  return ids.map((account) => ({
    account,
    credits: Number(pools.rows.find((row) => row.account_id === account)?.credits ?? Number.NaN),
    threshold: THRESHOLD,
    ledger: ledger.rows
      .filter((row) => row.account_id === account)
      .map((row) => ({ cause: row.cause, delta: Number(row.delta), creditsAfter: Number(row.credits_after), requestId: row.request_id })),
  }));
}

export function readAlerts(smtp: SmtpCapture, webhooks: WebhookReceiver, accounts: readonly AccountModel[]): Omit<FinalState, 'accounts'> {
  const kindOf = (text: string): AlertKind | undefined =>
    /^Low balance alert|balance\.low$/.test(text) ? 'low' : /^Zero balance alert|balance\.zero$/.test(text) ? 'zero' : undefined;
  const mails = smtp.messages.flatMap((mail) => {
    const account = accounts.find((candidate) => JSON.stringify(mail.to ?? '').includes(candidate.email));
    const kind = kindOf(mail.subject ?? '');
    return account && kind ? [{ account: account.id, kind }] : [];
  });
  const hooks = webhooks.received.flatMap((received) => {
    const payload = JSON.parse(received.body) as { type?: string; data?: { accountId?: number } };
    const kind = kindOf(payload.type ?? '');
    const account = accounts.find((candidate) => candidate.id === payload.data?.accountId);
    return account && kind ? [{ account: account.id, kind }] : [];
  });
  return { mails, webhooks: hooks };
}
