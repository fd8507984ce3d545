/**
 * The user service's operator commands (`pnpm admin accounts …`, `pnpm admin credits …`,
 * `pnpm admin audit`): thin calls to the admin API at USER_URL with ADMIN_TOKEN, printing the
 * answer as JSON on stdout and nothing else (`pnpm -s admin …` keeps pnpm's own banner off it too).
 */
import { adminRefusalSentence } from './cli-refusal';

const DEFAULT_USER_URL = 'http://127.0.0.1:8082';
const INTEGER = /^-?[0-9]+$/;

/** One admin API call. */
export interface AdminCall {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
}

interface Parsed {
  flags: Map<string, string>;
  positional: string[];
}

interface Command {
  usage: string;
  help: string;
  flags: string[];
  positional: number;
  call(parsed: Parsed): AdminCall;
}

/** `--name value` or `--name=value`; the rest are positional arguments. */
function parseFlags(args: string[], usage: string): Parsed {
  const flags = new Map<string, string>();
  const positional: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    if (equals > 0) {
      flags.set(arg.slice(2, equals), arg.slice(equals + 1));
      continue;
    }
    const value = args[index + 1];
    if (value === undefined) throw usageError(`missing value for ${arg}`, usage);
    flags.set(arg.slice(2), value);
    index += 1;
  }
  return { flags, positional };
}

function usageError(problem: string, usage = USAGE): Error {
  return new Error(`${problem}\n${usage}`);
}

function parseCreditsSpec(spec: string): Record<string, number> {
  const credits: Record<string, number> = {};
  for (const pair of spec.split(',').filter((part) => part.trim() !== '')) {
    const match = /^\s*([0-9]+)\s*=\s*([0-9]+)\s*$/.exec(pair);
    if (!match) throw usageError(`--credits expects <productId>=<credits>[,...], got "${pair}"`);
    credits[match[1] as string] = Number(match[2]);
  }
  return credits;
}

function integerArgument(name: string, value: string | undefined): number {
  if (value === undefined || !INTEGER.test(value) || !Number.isSafeInteger(Number(value))) throw usageError(`${name} must be an integer`);
  return Number(value);
}

/** The named flags that were given, as query parameters. */
function queryOf(flags: Map<string, string>, names: Record<string, string>): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [flag, parameter] of Object.entries(names)) {
    const value = flags.get(flag);
    if (value !== undefined) query[parameter] = value;
  }
  return query;
}

const accountPath = (parsed: Parsed, suffix = ''): string =>
  `/admin/v1/accounts/${integerArgument('accountId', parsed.positional[0])}${suffix}`;
const PAGING = { limit: 'limit', cursor: 'cursor' };

const COMMANDS: Record<string, Command> = {
  'accounts create': {
    usage: 'pnpm admin accounts create --email <e-mail> [--credits <productId>=<n>,...]',
    help: 'Creates an account; prints its id, e-mail and API key (shown only here).',
    flags: ['email', 'credits'],
    positional: 0,
    call: ({ flags }) => {
      const email = flags.get('email');
      if (email === undefined) throw usageError('accounts create needs --email');
      const credits = flags.get('credits');
      return {
        method: 'POST',
        path: '/admin/v1/accounts',
        body: credits === undefined ? { email } : { email, credits: parseCreditsSpec(credits) },
      };
    },
  },
  'accounts show': {
    usage: 'pnpm admin accounts show <accountId>',
    help: 'Shows an account: e-mail, disabled, balances (never its key).',
    flags: [],
    positional: 1,
    call: (parsed) => ({ method: 'GET', path: accountPath(parsed) }),
  },
  'accounts search': {
    usage:
      'pnpm admin accounts search [--email <exact e-mail>] [--q <part of the e-mail, or an id>] [--limit <1-100>] [--cursor <nextCursor>]',
    help: 'Lists accounts, newest first; pass the printed nextCursor as --cursor for the next page.',
    flags: ['email', 'q', 'limit', 'cursor'],
    positional: 0,
    call: ({ flags }) => ({ method: 'GET', path: '/admin/v1/accounts', query: queryOf(flags, { email: 'email', q: 'q', ...PAGING }) }),
  },
  'accounts set-email': {
    usage: 'pnpm admin accounts set-email <accountId> <e-mail>',
    help: "Changes an account's e-mail (409 when another account has it).",
    flags: [],
    positional: 2,
    call: (parsed) => ({ method: 'PATCH', path: accountPath(parsed), body: { email: parsed.positional[1] } }),
  },
  'accounts disable': {
    usage: 'pnpm admin accounts disable <accountId>',
    help: 'Disables an account: its key and every token are refused at once by every service.',
    flags: [],
    positional: 1,
    call: (parsed) => ({ method: 'PATCH', path: accountPath(parsed), body: { disabled: true } }),
  },
  'accounts enable': {
    usage: 'pnpm admin accounts enable <accountId>',
    help: 'Enables an account again: the same key works again; tokens minted before the disabling stay revoked.',
    flags: [],
    positional: 1,
    call: (parsed) => ({ method: 'PATCH', path: accountPath(parsed), body: { disabled: false } }),
  },
  'accounts rotate-key': {
    usage: 'pnpm admin accounts rotate-key <accountId>',
    help: 'Replaces a leaked key: the old key and its tokens are refused at once; prints the new key (shown only here).',
    flags: [],
    positional: 1,
    call: (parsed) => ({ method: 'POST', path: accountPath(parsed, '/api-key') }),
  },
  'accounts ledger': {
    usage: 'pnpm admin accounts ledger <accountId> [--limit <1-100>] [--cursor <nextCursor>]',
    help: 'Every balance change of the account, newest first: product, delta, credits after, cause, actor, time.',
    flags: ['limit', 'cursor'],
    positional: 1,
    call: (parsed) => ({ method: 'GET', path: accountPath(parsed, '/ledger'), query: queryOf(parsed.flags, PAGING) }),
  },
  'accounts usage': {
    usage: 'pnpm admin accounts usage <accountId> [--days <1-90>]',
    help: 'Credits used per UTC day and product over the last days (default 30).',
    flags: ['days'],
    positional: 1,
    call: (parsed) => ({ method: 'GET', path: accountPath(parsed, '/usage'), query: queryOf(parsed.flags, { days: 'days' }) }),
  },
  'credits add': {
    usage: 'pnpm admin credits add <accountId> <productId> <amount> [--reason <text>]',
    help: "Tops up (positive amount) or adjusts (negative, clamped at 0) the product's pool; the reason goes to the audit log.",
    flags: ['reason'],
    positional: 3,
    call: ({ positional, flags }) => {
      const [accountId, productId, amount] = positional;
      const reason = flags.get('reason');
      return {
        method: 'POST',
        path: `/admin/v1/accounts/${integerArgument('accountId', accountId)}/credits`,
        body: {
          productId: integerArgument('productId', productId),
          amount: integerArgument('amount', amount),
          ...(reason === undefined ? {} : { reason }),
        },
      };
    },
  },
  audit: {
    usage: 'pnpm admin audit [--account-id <accountId>] [--limit <1-100>] [--cursor <nextCursor>]',
    help: 'Who did what: every admin write and every key rotation, newest first.',
    flags: ['account-id', 'limit', 'cursor'],
    positional: 0,
    call: ({ flags }) => ({ method: 'GET', path: '/admin/v1/audit', query: queryOf(flags, { 'account-id': 'accountId', ...PAGING }) }),
  },
};

const USAGE = `usage: ${Object.values(COMMANDS)
  .map((command) => command.usage)
  .join('\n       ')}`;

/** The user commands' usage lines, for `pnpm admin --help`. */
export const USER_USAGE = Object.values(COMMANDS).map((command) => command.usage);

function commandOf(args: string[]): { name: string; command: Command; rest: string[] } | undefined {
  const two = `${args[0]} ${args[1]}`;
  const first = args[0] ?? '';
  if (COMMANDS[two]) return { name: two, command: COMMANDS[two], rest: args.slice(2) };
  if (COMMANDS[first]) return { name: first, command: COMMANDS[first], rest: args.slice(1) };
  return undefined;
}

/** `--help` after a command: its usage and what it does; else undefined. */
export function userCommandHelp(args: string[]): string | undefined {
  const found = commandOf(args);
  if (!args.includes('--help') && !args.includes('-h')) return undefined;
  if (!found) return `${USAGE}\n`;
  return `usage: ${found.command.usage}\n\n${found.command.help}\nEnvironment: USER_URL (default ${DEFAULT_USER_URL}), ADMIN_TOKEN (never printed).\n`;
}

/** Turns command-line arguments into the admin API call they stand for. */
export function parseUserCommand(args: string[]): AdminCall {
  const found = commandOf(args);
  if (!found) throw usageError(`unknown command: ${args.join(' ')}`);
  const usage = `usage: ${found.command.usage}`;
  const parsed = parseFlags(found.rest, usage);
  const unknown = [...parsed.flags.keys()].filter((name) => !found.command.flags.includes(name));
  if (unknown.length > 0) throw usageError(`unknown option --${unknown[0]}`, usage);
  if (parsed.positional.length !== found.command.positional)
    throw usageError(`${found.name} takes ${found.command.positional} argument(s)`, usage);
  return found.command.call(parsed);
}

function describeFailure(status: number, body: unknown, reason: string | null): string {
  const messages = (body as { messages?: unknown } | null)?.messages;
  const text = typeof messages === 'string' ? messages : messages === undefined ? JSON.stringify(body) : JSON.stringify(messages);
  return `admin API answered ${status}: ${adminRefusalSentence(reason) ?? text}`;
}

/**
 * Runs one command against the admin API and writes the JSON answer to `write` (stdout by
 * default). Rejects with a one-line reason (non-zero exit through runMain) on any failure.
 */
export async function runUserCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  write: (text: string) => void = (text) => process.stdout.write(text),
): Promise<void> {
  const help = userCommandHelp(args);
  if (help !== undefined) {
    write(help);
    return;
  }
  const call = parseUserCommand(args);
  const adminToken = env.ADMIN_TOKEN;
  if (adminToken === undefined || adminToken === '') throw new Error('ADMIN_TOKEN is not set: the admin API needs it');
  const base = env.USER_URL !== undefined && env.USER_URL !== '' ? env.USER_URL : DEFAULT_USER_URL;
  let url: URL;
  try {
    url = new URL(call.path.replace(/^\//, ''), base.endsWith('/') ? base : `${base}/`);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
  } catch {
    throw new Error(`USER_URL is not a URL: ${base}`);
  }
  const headers: Record<string, string> = { authorization: `Bearer ${adminToken}`, accept: 'application/json' };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url, {
      method: call.method,
      headers,
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    const reason = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new Error(`cannot reach the user service at ${base}: ${reason}`);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`admin API answered ${response.status} with a body that is not JSON`);
  }
  if (!response.ok) throw new Error(describeFailure(response.status, body, response.headers.get('x-refusal-reason')));
  write(`${JSON.stringify(body, null, 2)}\n`);
}
