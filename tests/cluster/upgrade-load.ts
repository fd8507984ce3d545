/**
 * Traffic for the rolling-upgrade test, through HAProxy's fronts until stopped: debits with a
 * requestId, sent again after a 503 or no answer (settleDebit), and between them token mints with
 * each account's current key, probes with the keys rotated away before the upgrade, and a debit
 * answered 200 earlier sent again under its requestId (a client that lost the answer), oldest
 * first, so that what one release applied is replayed to the next. Every answer is kept with the
 * phase it was sent in.
 */
import { randomUUID } from 'node:crypto';
import { signServiceJwt } from '@platform/credentials';
import { eventually } from '@platform/testing';
import { bearer, call, seedBearer } from '../contract/support/http';
import { settleDebit, type Debit } from './load';
import type { Fleet } from './upgrade-fleet';

export interface Answer {
  what: 'debit' | 'replay' | 'token' | 'retired token' | 'retired balance';
  status: number | string;
  phase: string;
}

export interface UpgradeLoad {
  debits: Debit[];
  answers: Answer[];
  /** Names the phase the next requests are sent in. */
  enter(phase: string): void;
  /** Resolves once `count` more debits have been answered 200 (in the phase entered last); fails at once on an answer not `acceptable`. */
  progress(count: number): Promise<void>;
  stop(): Promise<void>;
}

/** Answers a client may get during the upgrade: any 2xx or 4xx, or 503 (sent again). */
export const acceptable = (status: number | string): boolean => typeof status === 'number' && (status < 500 || status === 503);

const WORKERS = 6;
/** Every this many debits a worker also mints a token and probes a retired key. */
const PROBE_EVERY = 4;

export function debitVia(fleet: Fleet, secret: string): (debit: Debit) => Promise<number> {
  return async (debit) => {
    const jwt = signServiceJwt({ issuer: 'rolling-upgrade', audience: 'user', secret, ttlSeconds: 300 });
    const reply = await call(fleet.front('user'), '/internal/v1/usage', {
      headers: bearer(jwt),
      json: { credential: debit.apiKey, productId: 1, requestId: debit.requestId },
    });
    return reply.status;
  };
}

export function startUpgradeLoad(
  fleet: Fleet,
  secret: string,
  accounts: ReadonlyArray<{ id: number; apiKey: string }>,
  retiredKeys: readonly string[],
): UpgradeLoad {
  const debits: Debit[] = [];
  const answers: Answer[] = [];
  let phase = 'previous release';
  let stopped = false;
  const answered: Debit[] = [];
  let replays = 0;
  const send = debitVia(fleet, secret);
  const record = async (what: Answer['what'], request: () => Promise<{ status: number }>): Promise<void> => {
    const sentIn = phase;
    const status = await request()
      .then((reply) => reply.status)
      .catch((error: Error) => `no answer: ${error.message}`);
    answers.push({ what, status, phase: sentIn });
  };
  const worker = async (index: number): Promise<void> => {
    for (let turn = 0; !stopped; turn += 1) {
      const account = accounts[(index + turn * WORKERS) % accounts.length] as { id: number; apiKey: string };
      const debit: Debit = { accountId: account.id, apiKey: account.apiKey, requestId: randomUUID(), statuses: [], spans: [] };
      debits.push(debit);
      const sentIn = phase;
      await settleDebit(send, debit, Date.now() + 60_000);
      for (const status of debit.statuses) answers.push({ what: 'debit', status, phase: sentIn });
      if (debit.statuses.at(-1) === 200) answered.push(debit);
      if (turn % PROBE_EVERY !== 0) continue;
      // The oldest debit answered 200 not replayed yet (one is every turn, one replayed every PROBE_EVERY).
      const replayed = answered[replays++] as Debit;
      const from = replayed.statuses.length;
      await settleDebit(send, replayed, Date.now() + 60_000);
      for (const status of replayed.statuses.slice(from)) answers.push({ what: 'replay', status, phase: sentIn });
      const retired = retiredKeys[turn % retiredKeys.length] as string;
      const token = { grantType: 'access_token', expiresIn: 3600 };
      await record('token', () => call(fleet.front('auth'), '/oauth/token', { headers: seedBearer(account.apiKey), json: token }));
      await record('retired token', () => call(fleet.front('auth'), '/oauth/token', { headers: seedBearer(retired), json: token }));
      await record('retired balance', () =>
        call(fleet.front('user'), '/user-service/account-balance', { query: { apiKey: retired, productId: '1' } }),
      );
    }
  };
  const running = Promise.all(Array.from({ length: WORKERS }, (_, index) => worker(index)));
  const granted = (): number => debits.filter((debit) => debit.statuses.includes(200)).length;
  return {
    debits,
    answers,
    enter(next) {
      phase = next;
    },
    async progress(count) {
      const target = granted() + count;
      await eventually(
        () => {
          const refused = answers.filter((answer) => !acceptable(answer.status));
          if (refused.length > 0) throw new Error(`answers a client may not get: ${JSON.stringify(refused.slice(0, 5))}`);
          return granted() >= target ? true : undefined;
        },
        60_000,
        `${count} more debits in phase "${phase}"`,
      ).catch((error: Error) => {
        // What the load got meanwhile, so that a stall shows its cause (e.g. replays refused).
        const tally: Record<string, number> = {};
        for (const answer of answers.filter((each) => each.phase === phase)) {
          const key = `${answer.what} ${answer.status}`;
          tally[key] = (tally[key] ?? 0) + 1;
        }
        throw new Error(`${error.message}; answers in that phase: ${JSON.stringify(tally)}`);
      });
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}
