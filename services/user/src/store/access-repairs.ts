import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Redis } from 'ioredis';
import type { AccessRepairs, RepairIntents } from '../domain/access-repairs';
import { reconcile, type AccessRecordsDeps } from './access-records';

/*
 * What repairs the access store after a process died between a commit and its access writes
 * (access-records.ts): the repair intents its closing writes left in Redis, the grants its
 * commits left in Postgres, and the sweep that rewrites those accounts from Postgres.
 */

const PENDING_GRANTS = 'SELECT account_id FROM access_grants_pending ORDER BY account_id LIMIT $1';

/** Accounts with a grant that a commit recorded and no process wrote yet (oldest ids first). */
async function pendingGrants(pool: pg.Pool, limit: number): Promise<number[]> {
  const result = await pool.query<{ account_id: number }>(PENDING_GRANTS, [limit]);
  return result.rows.map((row) => Number(row.account_id));
}

/** On the access store's Redis; in memory for the embedded store (whose data a crash loses anyway: it is reconciled at start). */
export function repairIntents(client: Pick<Redis, 'sadd' | 'srem' | 'smembers'> | undefined, key: string): RepairIntents {
  const memory = new Set<string>();
  return {
    async add(accountId) {
      const member = `${accountId}:${randomUUID()}`;
      if (client) await client.sadd(key, member);
      else memory.add(member);
      return member;
    },
    async remove(members) {
      if (members.length === 0) return;
      if (client) await client.srem(key, ...members);
      else for (const member of members) memory.delete(member);
    },
    async list() {
      const members = client ? await client.smembers(key) : [...memory];
      return members.map((member) => ({ member, accountId: Number(member.split(':')[0]) }));
    },
  };
}

/**
 * The repair sweep (AccessRepairs): every account with a pending grant (a commit whose grant
 * never reached Redis) or a repair intent (a closing write whose transaction ended without its
 * process settling it) is rewritten from Postgres. Rewriting waits for any transaction that still
 * holds the account's row, so it is right whenever it runs.
 */
export function accessRepairs(access: AccessRecordsDeps): AccessRepairs {
  return {
    async sweep() {
      const grants = await pendingGrants(access.pool, 10_000);
      for (const accountId of grants) await reconcile(access, accountId);
      const intents = await access.intents.list();
      for (const { member, accountId } of intents) {
        await reconcile(access, accountId);
        await access.intents.remove([member]);
      }
      return grants.length + intents.length;
    },
  };
}
