/**
 * `pnpm admin <area> <command> [args]`: the operator's command line. Each service owns the
 * commands for its area; this file only dispatches.
 *   pnpm admin accounts create --email a@b.c [--credits 1=100,14=50]
 *   pnpm admin accounts show <id>
 *   pnpm admin credits add <accountId> <productId> <amount>
 *   pnpm admin categories import <file>
 *   pnpm admin service-jwt <auth|user> [issuer] [ttlSeconds]
 */
import { runMain } from '@platform/runtime';
import { runCategoriesCli } from '../services/categorization/src/cli';
import { runUserCli } from '../services/user/src/cli';
import { serviceJwt } from './service-jwt';

const USAGE = `usage: pnpm admin accounts create --email <e-mail> [--credits <productId>=<n>,...]
       pnpm admin accounts show <accountId>
       pnpm admin credits add <accountId> <productId> <amount>
       pnpm admin categories import <file>
       pnpm admin service-jwt <auth|user> [issuer] [ttlSeconds]`;

runMain(async () => {
  const [area, ...rest] = process.argv.slice(2);
  switch (area) {
    case 'accounts':
    case 'credits': {
      await runUserCli([area, ...rest], process.env);
      return;
    }
    case 'categories': {
      await runCategoriesCli(rest, process.env);
      return;
    }
    case 'service-jwt':
      process.stdout.write(`${serviceJwt(rest, process.env)}\n`);
      return;
    case undefined:
    default:
      throw new Error(USAGE);
  }
});
