import { z } from 'zod';
import { reconcileAll } from '@platform/accounts';
import { reconciledMarkerOf } from '@platform/credentials';
import { databaseIdentity } from '@platform/db';
import { infrastructureVariables, openInfrastructure } from '@platform/infrastructure';
import { createLogger, env, parseEnv } from '@platform/runtime';

export const RECONCILE_USAGE = 'pnpm admin reconcile --all';

const HELP = `usage: ${RECONCILE_USAGE}

Makes Redis agree with Postgres: removes every key record, token, token set and issuance window
of a key Postgres does not know as active, and rewrites every active key's record (generation
up to Postgres's, credits as in Postgres). Run it after a Postgres restore, before any service
starts (docs/operations.md, "Postgres: backup and restore"). Prints what it did as JSON.
Environment: DATABASE_DIRECT_URL (else DATABASE_URL), REDIS_URL or REDIS_CLUSTER_NODES, REDIS_KEY_PREFIX.
`;

function cliEnv(environment: NodeJS.ProcessEnv) {
  const { DATABASE_URL, DATABASE_DIRECT_URL, REDIS_URL, REDIS_CLUSTER_NODES } = infrastructureVariables(true, environment);
  return z.object({ DATABASE_URL, DATABASE_DIRECT_URL, REDIS_URL, REDIS_CLUSTER_NODES, REDIS_KEY_PREFIX: env.keyPrefix() });
}

/**
 * `pnpm admin reconcile --all`: a full reconciliation of the access store from Postgres, run by
 * this process on its own connections, not through the user service's admin API. The restore
 * procedure runs it while every service is stopped (none may answer from Redis before it), so
 * there is no service to call. It then leaves the marker the services look for: started after
 * it, they find the store reconciled for this Redis and this database and do not do it again.
 * (A service started without it reconciles by itself when the database's identity changed, but a
 * restore over the same database keeps that identity: the procedure names this command.)
 */
export async function runReconcileCli(args: string[], environment: NodeJS.ProcessEnv, write: (text: string) => void): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    write(HELP);
    return;
  }
  if (args.length !== 1 || args[0] !== '--all') throw new Error(`usage: ${RECONCILE_USAGE}`);
  const parsed = parseEnv(cliEnv(environment), environment);
  const logger = createLogger({ service: 'reconcile-cli', level: 'warn', stream: process.stderr });
  const infrastructure = await openInfrastructure(
    {
      databaseUrl: parsed.DATABASE_DIRECT_URL ?? parsed.DATABASE_URL,
      redisUrl: parsed.REDIS_URL,
      redisClusterNodes: parsed.REDIS_CLUSTER_NODES,
      redisKeyPrefix: parsed.REDIS_KEY_PREFIX,
    },
    { name: 'reconcile-cli', logger, needs: ['pool', 'redis'], poolMax: 2 },
  );
  try {
    const { pool, redis } = infrastructure;
    // The identities first: a Redis restart during the run leaves a marker of the old server, and
    // the services then reconcile again.
    const { serverId } = await redis.access.identity();
    const sourceId = await databaseIdentity(pool);
    const report = await reconcileAll(pool, redis.access);
    await redis.access.markReconciled(reconciledMarkerOf(serverId, sourceId));
    write(`${JSON.stringify({ redis: serverId, postgres: sourceId, ...report })}\n`);
  } finally {
    await infrastructure.close();
  }
}
