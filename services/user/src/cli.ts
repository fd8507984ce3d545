/**
 * The user service's operator commands (`pnpm admin accounts …`, `pnpm admin credits …`): thin
 * calls to the admin API at USER_URL with ADMIN_TOKEN, printing the answer as JSON.
 */
const USAGE = `usage: pnpm admin accounts create --email <e-mail> [--credits <productId>=<n>,...]
       pnpm admin accounts show <accountId>
       pnpm admin credits add <accountId> <productId> <amount>`;

const DEFAULT_USER_URL = 'http://127.0.0.1:8082';
const INTEGER = /^-?[0-9]+$/;

/** One admin API call. */
export interface AdminCall {
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
}

function usageError(problem: string): Error {
  return new Error(`${problem}\n${USAGE}`);
}

/** `--name value` or `--name=value`; the rest are positional arguments. */
function parseFlags(args: string[]): { flags: Map<string, string>; positional: string[] } {
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
    if (value === undefined) throw usageError(`missing value for ${arg}`);
    flags.set(arg.slice(2), value);
    index += 1;
  }
  return { flags, positional };
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

/** Turns command-line arguments into the admin API call they stand for. */
export function parseUserCommand(args: string[]): AdminCall {
  const [area, command, ...rest] = args;
  const { flags, positional } = parseFlags(rest);
  if (area === 'accounts' && command === 'create') {
    const email = flags.get('email');
    if (email === undefined || positional.length > 0) throw usageError('accounts create needs --email');
    const credits = flags.get('credits');
    const unknown = [...flags.keys()].filter((name) => name !== 'email' && name !== 'credits');
    if (unknown.length > 0) throw usageError(`unknown option --${unknown[0]}`);
    return {
      method: 'POST',
      path: '/admin/v1/accounts',
      body: credits === undefined ? { email } : { email, credits: parseCreditsSpec(credits) },
    };
  }
  if (area === 'accounts' && command === 'show' && positional.length === 1 && flags.size === 0) {
    return { method: 'GET', path: `/admin/v1/accounts/${integerArgument('accountId', positional[0])}` };
  }
  if (area === 'credits' && command === 'add' && positional.length === 3 && flags.size === 0) {
    const [accountId, productId, amount] = positional;
    return {
      method: 'POST',
      path: `/admin/v1/accounts/${integerArgument('accountId', accountId)}/credits`,
      body: { productId: integerArgument('productId', productId), amount: integerArgument('amount', amount) },
    };
  }
  throw usageError(`unknown command: ${args.join(' ')}`);
}

function describeFailure(status: number, body: unknown): string {
  const messages = (body as { messages?: unknown } | null)?.messages;
  const text = typeof messages === 'string' ? messages : messages === undefined ? JSON.stringify(body) : JSON.stringify(messages);
  return `admin API answered ${status}: ${text}`;
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
  const call = parseUserCommand(args);
  const adminToken = env.ADMIN_TOKEN;
  if (adminToken === undefined || adminToken === '') throw new Error('ADMIN_TOKEN is not set: the admin API needs it');
  const base = env.USER_URL !== undefined && env.USER_URL !== '' ? env.USER_URL : DEFAULT_USER_URL;
  let url: URL;
  try {
    url = new URL(call.path.replace(/^\//, ''), base.endsWith('/') ? base : `${base}/`);
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
  if (!response.ok) throw new Error(describeFailure(response.status, body));
  write(`${JSON.stringify(body, null, 2)}\n`);
}
