export { createApp } from './app';
export { runUserCli, USER_USAGE } from './entry-points/cli';
export { loadConfig, type UserConfig } from './config';
export { USER_NEEDS, type UserDeps, type UserSeams } from './deps';
export { RECONCILE_USAGE, runReconcileCli } from './reconcile-cli';
export { runUserService, startUserService, type UserService } from './service';
export { runVerifyLedger, VERIFY_LEDGER_USAGE } from './verify-ledger-cli';
export { ledgerDifferences, type LedgerDifference } from './store/ledger-verification';
