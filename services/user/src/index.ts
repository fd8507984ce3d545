export { createApp } from './app';
export { runUserCli, USER_USAGE } from './entry-points/cli';
export { RECONCILE_USAGE, runReconcileCli } from './reconcile-cli';
export { runVerifyLedger, VERIFY_LEDGER_USAGE } from './verify-ledger-cli';
export { loadConfig, type UserConfig } from './config';
export { USER_NEEDS } from './deps';
export { runUserService, startUserService, type UserService } from './service';
