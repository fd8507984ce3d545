/**
 * The mixed workload of a chaos run: CLIENTS clients, each owning ACCOUNTS_PER_CLIENT accounts
 * (so that a client knows its accounts' keys), issue tokens, read balances, debit one credit at a
 * time under a fresh requestId (retried under the same requestId while the answer is unknown, and
 * sometimes sent again after its 200), top up, rotate keys (the operator's rotation when the
 * customer's answer is unknown), and disable then enable. Pools start low and are topped up, so
 * that they cross the alert thresholds both ways. One more client presents any credential ever
 * seen, stale ones included, so that revocation is tried from everywhere.
 */
import { randomUUID } from 'node:crypto';
import type { Api, AccountModel } from './api';
import type { Credential, Op } from './history';

const CLIENTS = 4;
const ACCOUNTS_PER_CLIENT = 2;
const INITIAL_CREDITS = 25;
const TOP_UP = 15;
const DEBIT_ATTEMPTS = 6;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const pickOf = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

/** The credential a client presents: its newest token, else its current key. */
function current(account: AccountModel): { credential: Credential; secret: string } {
  const token = account.tokens[account.tokens.length - 1];
  if (token) return { credential: { token: token.op }, secret: token.token };
  return { credential: { key: account.keys.length - 1 }, secret: account.keys[account.keys.length - 1] as string };
}

/** Retries `attempt` while its answer is unknown (503, no answer), backing off a little; true once it answered 2xx. */
async function untilKnown(attempt: () => Promise<{ op: { type: string } }>, attempts = DEBIT_ATTEMPTS): Promise<boolean> {
  for (let round = 1; round <= attempts; round += 1) {
    const { op } = await attempt();
    if (op.type !== 'info') return op.type === 'ok';
    await pause(200 * round);
  }
  return false;
}

async function debit(api: Api, client: number, account: AccountModel): Promise<void> {
  const { credential, secret } = current(account);
  const requestId = randomUUID();
  let answered: { type: string; status: unknown; credits?: number } = { type: 'info', status: 0 };
  await untilKnown(async () => {
    const answer = await api.debit(client, account.id, credential, secret, requestId);
    answered = answer.op;
    return answer;
  });
  // A client that lost the answer in transit sends the same requestId again: nothing more is debited.
  if (answered.type === 'ok' && Math.random() < 0.15) await api.debit(client, account.id, credential, secret, requestId);
  if (answered.status === 403 || (answered.type === 'ok' && (answered.credits ?? 0) === 0 && Math.random() < 0.5))
    await topUp(api, client, account);
}

async function topUp(api: Api, client: number, account: AccountModel): Promise<void> {
  // A top-up has no requestId: an unknown one is not sent again (the checker allows for it either way).
  await api.topUp(client, account, TOP_UP);
}

async function rotate(api: Api, client: number, account: AccountModel): Promise<void> {
  const { op } = await api.rotate(client, account, false);
  if (op.type !== 'info') return;
  // The customer's rotation may have happened, under a key the client never got: the operator rotates.
  await untilKnown(() => api.rotate(client, account, true), 20);
}

async function disableThenEnable(api: Api, client: number, account: AccountModel): Promise<void> {
  await untilKnown(() => api.setDisabled(client, account, true), 20);
  const { credential, secret } = current(account);
  await api.balance(client, account.id, credential, secret);
  await api.issue(client, account);
  await untilKnown(() => api.setDisabled(client, account, false), 40);
  // Tokens minted before the disable stay revoked: only the key is presented until a new token.
  account.tokens = [];
}

async function step(api: Api, client: number, account: AccountModel): Promise<void> {
  const roll = Math.random();
  if (roll < 0.2) await api.issue(client, account);
  else if (roll < 0.38) {
    const { credential, secret } = current(account);
    await api.balance(client, account.id, credential, secret);
  } else if (roll < 0.9) await debit(api, client, account);
  else if (roll < 0.96) await rotate(api, client, account);
  else await disableThenEnable(api, client, account);
}

export interface Workload {
  accounts: AccountModel[];
  /** Runs every client until `until` (epoch ms). */
  run(until: number): Promise<void>;
}

export async function prepareWorkload(api: Api): Promise<Workload> {
  const owned: AccountModel[][] = [];
  for (let client = 0; client < CLIENTS; client += 1) {
    const accounts: AccountModel[] = [];
    for (let index = 0; index < ACCOUNTS_PER_CLIENT; index += 1) {
      const account = await api.create(client, INITIAL_CREDITS);
      if (!account) throw new Error('an account of the workload was not created');
      accounts.push(account);
    }
    owned.push(accounts);
  }
  return {
    accounts: owned.flat(),
    async run(until) {
      const owner = async (client: number): Promise<void> => {
        while (Date.now() < until) await step(api, client, pickOf(owned[client] as AccountModel[]));
      };
      const stale = async (): Promise<void> => {
        while (Date.now() < until) {
          const seen = pickOf(api.seen);
          await api.balance(CLIENTS, seen.account, seen.credential, seen.secret);
          await pause(50);
        }
      };
      await Promise.all([...owned.map((_accounts, client) => owner(client)), stale()]);
    },
  };
}

/** Replays every debit whose outcome is still unknown, with its requestId and credential, until it is known (or 3 tries). */
export async function settleUnknownDebits(api: Api, ops: readonly Op[]): Promise<void> {
  const byRequest = new Map<string, Op[]>();
  for (const op of ops.filter((entry) => entry.f === 'debit' && entry.requestId !== undefined))
    byRequest.set(op.requestId as string, [...(byRequest.get(op.requestId as string) ?? []), op]);
  const unknown = [...byRequest.values()].filter((attempts) => attempts.every((attempt) => attempt.type === 'info'));
  for (const attempts of unknown) {
    const first = attempts[0] as Op;
    const secret = api.seen.find(
      (entry) => entry.account === first.account && JSON.stringify(entry.credential) === JSON.stringify(first.credential),
    );
    if (!secret || !first.credential) continue;
    await untilKnown(
      () => api.debit(CLIENTS + 1, first.account, first.credential as Credential, secret.secret, first.requestId as string, true),
      3,
    );
  }
}
