/** The user service's operator commands as data: each one's usage, help, flags and the admin API call it stands for. */

const INTEGER = /^-?[0-9]+$/;

/** One admin API call. */
export interface AdminCall {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
}

export interface Parsed {
  flags: Map<string, string>;
  positional: string[];
}

export interface Command {
  usage: string;
  help: string;
  flags: string[];
  positional: number;
  call(parsed: Parsed): AdminCall;
}

/** A usage problem: the problem, then the usage lines. */
export function usageError(problem: string, usage = `usage: ${USAGE_LINES.join('\n       ')}`): Error {
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

export const COMMANDS: Record<string, Command> = {
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
    help: 'Shows an account: e-mail, disabled, balances, notification settings and last webhook deliveries (never its key or webhook secret).',
    flags: [],
    positional: 1,
    call: (parsed) => ({ method: 'GET', path: accountPath(parsed) }),
  },
  'accounts search': {
    usage:
      'pnpm admin accounts search [--email <exact e-mail>] [--q <part of the e-mail, or an id>] [--status active|disabled] [--balance low|empty] [--limit <1-100>] [--cursor <nextCursor>]',
    help: "Lists accounts, newest first, each with its pools' credits; --balance low: some pool below the account's low threshold, empty: some pool at 0. Pass the printed nextCursor as --cursor for the next page.",
    flags: ['email', 'q', 'status', 'balance', 'limit', 'cursor'],
    positional: 0,
    call: ({ flags }) => ({
      method: 'GET',
      path: '/admin/v1/accounts',
      query: queryOf(flags, { email: 'email', q: 'q', status: 'status', balance: 'balance', ...PAGING }),
    }),
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
    usage: 'pnpm admin accounts ledger <accountId> [--limit <1-100>] [--cursor <nextCursor>] [--format csv]',
    help: 'Every balance change of the account, newest first: product, delta, credits after, cause, actor, time. --format csv prints every row as CSV.',
    flags: ['limit', 'cursor', 'format'],
    positional: 1,
    call: (parsed) => ({
      method: 'GET',
      path: accountPath(parsed, '/ledger'),
      query: queryOf(parsed.flags, { ...PAGING, format: 'format' }),
    }),
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
    usage:
      'pnpm admin audit [--account-id <accountId>] [--actor <token name>] [--action <action>] [--from <ISO time>] [--to <ISO time>] [--limit <1-100>] [--cursor <nextCursor>] [--format csv]',
    help: 'Who did what: every admin write (categories included) and every key rotation, newest first; --from inclusive, --to exclusive. --format csv prints every matching row as CSV.',
    flags: ['account-id', 'actor', 'action', 'from', 'to', 'limit', 'cursor', 'format'],
    positional: 0,
    call: ({ flags }) => ({
      method: 'GET',
      path: '/admin/v1/audit',
      query: queryOf(flags, {
        'account-id': 'accountId',
        actor: 'actor',
        action: 'action',
        from: 'from',
        to: 'to',
        ...PAGING,
        format: 'format',
      }),
    }),
  },
  products: {
    usage: 'pnpm admin products',
    help: 'The product catalogue: every product id, its name and the ids of the products sharing its pool.',
    flags: [],
    positional: 0,
    call: () => ({ method: 'GET', path: '/admin/v1/products' }),
  },
};

/** Every command's usage line, for `pnpm admin --help`. */
export const USAGE_LINES = Object.values(COMMANDS).map((command) => command.usage);
