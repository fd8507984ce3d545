import { parseArgs } from 'node:util';
import { ApiError } from './api-error.js';
import { AccountAccessClient } from './client.js';
import { refusalSentence } from './refusal.js';
import type { CategoryOrder, TokenLifetime } from './types.js';

export const USAGE = `usage: account-access <command> [options]   (in this repository: pnpm -s client <command>)
  balance [--product-id <id>]   credits of every product the account holds, or of one
  usage-history [--days <1-90>] [--product-id <id>]
                                credits used per UTC day and product (default: the last 30 days)
  token                         a fresh access token for API_KEY
  rotate                        replace API_KEY; prints the new key (the old one stops working)
  categories [--order IAB|ABC]  every category
  --help                        this text
environment: API_KEY (required), AUTH_URL, USER_URL, CATEGORIZATION_URL (default http://127.0.0.1:8081, :8082, :8083),
             TOKEN_EXPIRES_IN (1800, 3600, 7200 or 10800; default 3600)`;

const LIFETIMES: readonly TokenLifetime[] = [1800, 3600, 7200, 10800];

/** Where the CLI writes; the bin passes process.stdout and process.stderr. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

class UsageError extends Error {}

function clientFromEnvironment(environment: Record<string, string | undefined>): AccountAccessClient {
  const apiKey = environment.API_KEY;
  if (!apiKey) throw new UsageError('API_KEY is not set.');
  const lifetime = Number(environment.TOKEN_EXPIRES_IN || 3600);
  const expiresIn = LIFETIMES.find((allowed) => allowed === lifetime);
  if (expiresIn === undefined) throw new UsageError('TOKEN_EXPIRES_IN must be 1800, 3600, 7200 or 10800.');
  return new AccountAccessClient({
    apiKey,
    authUrl: environment.AUTH_URL || 'http://127.0.0.1:8081',
    userUrl: environment.USER_URL || 'http://127.0.0.1:8082',
    categorizationUrl: environment.CATEGORIZATION_URL || 'http://127.0.0.1:8083',
    expiresIn,
  });
}

function parseOptions(args: string[]) {
  try {
    return parseArgs({
      args,
      options: { 'product-id': { type: 'string' }, order: { type: 'string' }, days: { type: 'string' } },
      strict: true,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** A whole-number option, or undefined when it is not given. */
function numberOption(value: string | undefined, name: string, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]+$/.test(value)) throw new UsageError(`--${name} takes ${what}.`);
  return Number(value);
}

async function runCommand(command: string | undefined, args: string[], client: () => AccountAccessClient): Promise<unknown> {
  const { values } = parseOptions(args);
  const productId = numberOption(values['product-id'], 'product-id', 'a product id');
  switch (command ?? '') {
    case 'balance':
      return client().balance(productId === undefined ? {} : { productId });
    case 'usage-history': {
      const days = numberOption(values.days, 'days', 'a number of days (1-90)');
      return client().usageHistory({ ...(days === undefined ? {} : { days }), ...(productId === undefined ? {} : { productId }) });
    }
    case 'token':
      return { accessToken: await client().accessToken() };
    case 'rotate':
      return { apiKey: await client().rotateKey() };
    case 'categories': {
      const order = values.order?.toUpperCase() ?? 'IAB';
      if (order !== 'IAB' && order !== 'ABC') throw new UsageError('--order takes IAB or ABC.');
      return client().categories({ order: order satisfies CategoryOrder });
    }
    default:
      throw new UsageError(command === undefined ? 'No command given.' : `Unknown command: ${command}`);
  }
}

/**
 * Runs one CLI command and prints its result as JSON. Answers the exit code: 0 done,
 * 1 the platform refused (the ApiError printed as JSON on stderr, a refusal's reason worded as a
 * sentence in `messages`), 2 bad usage.
 */
export async function runClientCli(argv: string[], environment: Record<string, string | undefined>, output: CliOutput): Promise<number> {
  const [command, ...args] = argv;
  if (command === '--help' || command === '-h' || command === 'help' || args.includes('--help')) {
    output.out(`${USAGE}\n`);
    return 0;
  }
  try {
    const result = await runCommand(command, args, () => clientFromEnvironment(environment));
    output.out(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof ApiError) {
      const { status, code, reason, replacedAt, requestId } = error;
      // The refusal's own sentence in place of the platform's one sentence for every refusal.
      const messages = refusalSentence(reason, replacedAt) ?? error.messages;
      output.err(`${JSON.stringify({ error: { status, code, reason, replacedAt, messages, requestId } }, null, 2)}\n`);
      return 1;
    }
    if (error instanceof UsageError) {
      output.err(`${error.message}\n${USAGE}\n`);
      return 2;
    }
    throw error;
  }
}
