/** The chaos run's last check: `pnpm admin verify-ledger` over every account (CONTRACT §7.1). */
import { execFile } from 'node:child_process';
import path from 'node:path';

const ADMIN = path.resolve(__dirname, '../admin.ts');

/** Runs the command on `directUrl` (the primary); resolves what it printed when it found a difference, else nothing. */
export function verifyLedger(directUrl: string): Promise<string[]> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=development', '--import', 'tsx', ADMIN, 'verify-ledger'],
      { env: { ...process.env, DATABASE_URL: directUrl, DATABASE_DIRECT_URL: directUrl }, timeout: 60_000 },
      (error, stdout, stderr) => {
        console.log(`verify-ledger: ${error ? `exit ${String(error.code)}` : 'every pool matches its ledger'}`);
        resolve(error ? [`pnpm admin verify-ledger failed: ${`${stdout}\n${stderr}`.trim().slice(0, 4000)}`] : []);
      },
    );
  });
}
