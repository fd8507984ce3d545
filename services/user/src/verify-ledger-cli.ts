import { z } from 'zod';
import { createLogger, env, parseEnv } from '@platform/runtime';
import { createPool } from '@platform/db';
import { ledgerDifferences, type LedgerDifference } from './store/ledger-verification';

export const VERIFY_LEDGER_USAGE = 'pnpm admin verify-ledger [--account <accountId>]';

const cliEnv = z.object({
  DATABASE_URL: env.url(['postgres', 'postgresql']),
  DATABASE_DIRECT_URL: env.url(['postgres', 'postgresql']).optional(),
});

function accountOf(args: string[]): number | undefined {
  if (args.length === 0) return undefined;
  const [flag, value, ...rest] = args.length === 1 && args[0]?.startsWith('--account=') ? ['--account', args[0].slice(10)] : args;
  if (flag !== '--account' || value === undefined || rest.length > 0 || !/^[0-9]{1,9}$/.test(value))
    throw new Error(`usage: ${VERIFY_LEDGER_USAGE}`);
  return Number(value);
}

const line = (d: LedgerDifference): string =>
  `account ${d.accountId} pool ${d.poolId}: credits ${d.credits}, ledger ${d.expected} ` +
  `(top-ups ${d.topUps}, adjustments ${d.adjustments}, charges ${d.charges}, open holds ${d.openHolds})`;

/**
 * `pnpm admin verify-ledger [--account ID]` (CONTRACT §7.1): per pool, its credits must equal the
 * ledger's top-ups and adjustments minus charges and open holds. Reads Postgres directly
 * (DATABASE_DIRECT_URL, else DATABASE_URL; read-only), prints `{"pools", "differences"}` as JSON,
 * and rejects (a non-zero exit through runMain) naming each difference.
 */
export async function runVerifyLedger(
  args: string[],
  environment: NodeJS.ProcessEnv,
  out: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    out.write(`usage: ${VERIFY_LEDGER_USAGE}\n\nChecks every pool's credits against its ledger; exits non-zero listing each difference.\n`);
    return;
  }
  const accountId = accountOf(args);
  const { DATABASE_URL, DATABASE_DIRECT_URL } = parseEnv(cliEnv, environment);
  const logger = createLogger({ service: 'user-cli', level: 'warn', stream: process.stderr });
  const pool = createPool({ connectionString: DATABASE_DIRECT_URL ?? DATABASE_URL, logger, max: 1 });
  try {
    const report = await ledgerDifferences(pool, accountId);
    out.write(`${JSON.stringify(report)}\n`);
    if (report.differences.length > 0) {
      throw new Error(
        `credits differ from the ledger in ${report.differences.length} pool(s):\n${report.differences.map(line).join('\n')}`,
      );
    }
  } finally {
    await pool.end();
  }
}
