import { silentLogger } from '@platform/testing';
import type { UsageCommitPorts } from '../src/domain/commit-usage-batch';
import { NO_PAUSES } from '../src/pause-point';
import { repairIntents } from '../src/store/access-repairs';
import { createAccountTransactions } from '../src/store/account-transaction';
import { createUsageReads } from '../src/store/usage-batch';
import type { Harness } from './harness';

/** What a usage batch commit runs on, as the service wires it, on the harness's pool and access store (tests drive createBatchCommit). */
export function usageCommitPorts(h: Pick<Harness, 'pool' | 'access'>): UsageCommitPorts {
  const access = {
    writer: h.access,
    intents: repairIntents(undefined, 'unused'),
    pool: h.pool,
    logger: silentLogger(),
    wake: () => undefined,
    pauses: NO_PAUSES,
  };
  return { reads: createUsageReads(h.pool), accounts: createAccountTransactions(h.pool, access) };
}
