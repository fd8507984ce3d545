/**
 * The chaos run's history (scripts/chaos), in the manner of Jepsen: every operation a client
 * made, with when it started and ended (ms since the run began) and its outcome, `ok` (2xx: it
 * happened), `fail` (4xx: it did not) or `info` (503, no answer, a timeout: unknown), then what
 * the run read after healing the cluster (the ledger, the alerts). Written as JSON lines; the
 * checker (checker/) reads nothing else.
 */

export type OpKind = 'create' | 'issue' | 'balance' | 'debit' | 'top-up' | 'rotate' | 'disable' | 'enable';
export type Outcome = 'ok' | 'fail' | 'info';

/** A credential as the history names it: the account's key by serial (0 first), or a token by the id of the `issue` that minted it. */
export type Credential = { key: number } | { token: number };

export interface Op {
  id: number;
  client: number;
  f: OpKind;
  account: number;
  start: number;
  end: number;
  type: Outcome;
  /** The HTTP status, or why there was none. */
  status: number | 'timeout' | 'no answer';
  /** A 503 carried Retry-After. */
  retryAfter?: boolean;
  credential?: Credential;
  /** debit: its requestId (a retry sends the same one); `settle` marks a replay made after the run. */
  requestId?: string;
  settle?: boolean;
  /** debit: units; top-up and create: credits added. */
  amount?: number;
  /** The pool's credits in a 200 answer (debit, top-up, create). */
  credits?: number;
  /** rotate: every key up to this serial is replaced (and its tokens revoked); `to`: the new key's serial, when ok. */
  from?: number;
  to?: number;
}

export interface LedgerRow {
  cause: 'usage' | 'top-up' | 'adjustment';
  delta: number;
  creditsAfter: number;
  requestId: string | null;
}

export interface AccountEnd {
  account: number;
  /** The pool's credits in Postgres after the run. */
  credits: number;
  /** Low-balance threshold (the default, 10). */
  threshold: number;
  /** In the order written (credit_ledger.id). */
  ledger: LedgerRow[];
}

export type AlertKind = 'low' | 'zero';

export interface FinalState {
  accounts: AccountEnd[];
  mails: Array<{ account: number; kind: AlertKind }>;
  webhooks: Array<{ account: number; kind: AlertKind }>;
}

export interface History {
  seed: number;
  ops: Op[];
  final: FinalState;
}

/** One line per operation, then `{"final": …}`, first `{"seed": …}`. */
export function toJsonLines(history: History): string {
  return [JSON.stringify({ seed: history.seed }), ...history.ops.map((op) => JSON.stringify(op)), JSON.stringify({ final: history.final })]
    .join('\n')
    .concat('\n');
}

export function fromJsonLines(text: string): History {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const history: History = { seed: 0, ops: [], final: { accounts: [], mails: [], webhooks: [] } };
  for (const line of lines) {
    const entry = JSON.parse(line) as { seed?: number; final?: FinalState } & Partial<Op>;
    if (entry.seed !== undefined) history.seed = entry.seed;
    else if (entry.final !== undefined) history.final = entry.final;
    else history.ops.push(entry as Op);
  }
  return history;
}
