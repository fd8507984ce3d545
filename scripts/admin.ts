/**
 * `pnpm admin <area> <command> [args]`: the operator's command line. Each service owns the
 * commands for its area; this file only dispatches. `pnpm admin --help` lists every command,
 * `pnpm admin <area> <command> --help` explains one. Answers are JSON on stdout (use
 * `pnpm -s admin …` to keep pnpm's own banner off stdout when piping).
 */
import { runMain } from '@platform/runtime';
import { runCategoriesCli } from '../services/categorization/src/cli';
import { RECONCILE_USAGE, runReconcileCli, runUserCli, runVerifyLedger, USER_USAGE, VERIFY_LEDGER_USAGE } from '@platform/user';
import { serviceJwt } from './service-jwt';

const USAGE = `usage: ${[...USER_USAGE, RECONCILE_USAGE, VERIFY_LEDGER_USAGE, 'pnpm admin categories import <file>', 'pnpm admin service-jwt <auth|user> [issuer] [ttlSeconds]'].join('\n       ')}`;

runMain(async () => {
  const [area, ...rest] = process.argv.slice(2);
  switch (area) {
    case 'accounts':
    case 'credits':
    case 'audit':
    case 'products': {
      await runUserCli([area, ...rest], process.env);
      return;
    }
    case 'reconcile': {
      await runReconcileCli(rest, process.env, (text) => process.stdout.write(text));
      return;
    }
    case 'verify-ledger': {
      await runVerifyLedger(rest, process.env);
      return;
    }
    case 'categories': {
      await runCategoriesCli(rest, process.env);
      return;
    }
    case 'service-jwt':
      process.stdout.write(`${serviceJwt(rest, process.env)}\n`);
      return;
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return;
    case undefined:
    default:
      throw new Error(USAGE);
  }
});
