/**
 * The ledger check that ends every fault test file (CONTRACT §7.1): `pnpm admin verify-ledger`,
 * the operator's command itself, run on the file's database once its tests are done. Whatever a
 * fault did to the services, every pool's credits must still equal its ledger (top-ups and
 * adjustments minus charges and open holds).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { sourceNodeArgs } from '@platform/testing';

const ROOT = path.resolve(__dirname, '../..');

export interface LedgerVerdict {
  /** The command's exit code: 0 when every pool matches its ledger. */
  code: number;
  /** Its JSON report (`{"pools", "differences"}`), parsed. */
  report: { pools: number; differences: unknown[] } | undefined;
  /** Its stderr: each difference, when there are any. */
  errors: string;
}

/** Runs `pnpm admin verify-ledger [--account ID]` on the database at `databaseUrl`. */
export function verifyLedger(databaseUrl: string, accountId?: number): Promise<LedgerVerdict> {
  const args = [
    ...sourceNodeArgs,
    'scripts/admin.ts',
    'verify-ledger',
    ...(accountId === undefined ? [] : ['--account', String(accountId)]),
  ];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: ROOT, env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const line = stdout.trim().split('\n').pop();
        let report: LedgerVerdict['report'];
        try {
          report = line ? (JSON.parse(line) as LedgerVerdict['report']) : undefined;
        } catch {
          report = undefined;
        }
        resolve({ code: error ? Number(error.code ?? 1) : 0, report, errors: stderr });
      },
    );
  });
}

/** Asserts the ledger of the database is clean: exit 0, no difference, at least `minPools` pools checked. */
export async function expectLedgerClean(databaseUrl: string, minPools = 0): Promise<void> {
  const verdict = await verifyLedger(databaseUrl);
  expect({ code: verdict.code, differences: verdict.report?.differences, errors: verdict.code === 0 ? '' : verdict.errors }).toEqual({
    code: 0,
    differences: [],
    errors: '',
  });
  expect(verdict.report?.pools).toBeGreaterThanOrEqual(minPools);
}

/**
 * Registers an afterAll that runs the ledger check on the file's database. Declare it before the
 * afterAll that drops the database: jest runs a block's afterAll hooks in the order declared.
 */
export function verifyLedgerAfterAll(databaseUrl: () => string | undefined): void {
  afterAll(async () => {
    const url = databaseUrl();
    expect(url).toEqual(expect.any(String));
    await expectLedgerClean(url as string);
  }, 90_000);
}
