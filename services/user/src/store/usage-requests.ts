import type { Queryable } from '@platform/db';

/** The answer given to a usage request, kept so that a replay of its requestId gets it again. */
export type UsageAnswer = { outcome: 'granted'; accountId: number; productId: number; credits: number } | { outcome: 'exhausted' };

export type UsageRequestClaim = { kind: 'first' } | { kind: 'replay'; digest: string; answer: UsageAnswer };

// `status` holds the HTTP status the answer went out with (200 granted, 403 exhausted), `response` the granted body.
const GRANTED = 200;
const EXHAUSTED = 403;

// Until the claiming transaction commits, a concurrent INSERT of the same requestId waits on
// the primary key; it then finds the row (DO NOTHING) and reads the committed answer, or, if
// the first transaction rolled back, inserts and becomes the first itself.
const CLAIM = `
INSERT INTO usage_requests (request_id, request_digest, status, response) VALUES ($1, $2, 0, '{}')
ON CONFLICT (request_id) DO NOTHING
RETURNING request_id`;

const READ = 'SELECT request_digest, status, response FROM usage_requests WHERE request_id = $1';

function answerOf(status: number, response: unknown): UsageAnswer {
  if (status === EXHAUSTED) return { outcome: 'exhausted' };
  const body = response as { accountId: number; productId: number; credits: number };
  return { outcome: 'granted', accountId: Number(body.accountId), productId: Number(body.productId), credits: Number(body.credits) };
}

/** Takes the requestId for this transaction, or reads the answer an earlier request got. Run inside a transaction. */
export async function claimUsageRequest(db: Queryable, requestId: string, digest: string): Promise<UsageRequestClaim> {
  const inserted = await db.query(CLAIM, [requestId, digest]);
  if (inserted.rowCount === 1) return { kind: 'first' };
  const found = await db.query<{ request_digest: string; status: number; response: unknown }>(READ, [requestId]);
  const row = found.rows[0];
  if (!row) throw new Error(`usage request ${requestId} vanished`);
  return { kind: 'replay', digest: row.request_digest, answer: answerOf(row.status, row.response) };
}

/** Stores the answer of the request that claimed `requestId` (same transaction as the debit). */
export async function saveUsageAnswer(db: Queryable, requestId: string, answer: UsageAnswer): Promise<void> {
  const status = answer.outcome === 'granted' ? GRANTED : EXHAUSTED;
  const response =
    answer.outcome === 'granted' ? { accountId: answer.accountId, productId: answer.productId, credits: answer.credits } : {};
  await db.query('UPDATE usage_requests SET status = $2, response = $3 WHERE request_id = $1', [
    requestId,
    status,
    JSON.stringify(response),
  ]);
}
