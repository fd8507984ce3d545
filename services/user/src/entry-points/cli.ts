/**
 * The user service's operator commands (`pnpm admin accounts …`, `pnpm admin credits …`,
 * `pnpm admin audit`): thin calls to the admin API at USER_URL with ADMIN_TOKEN, printing the
 * answer as JSON on stdout and nothing else (`pnpm -s admin …` keeps pnpm's own banner off it too).
 */
import { COMMANDS, USAGE_LINES, usageError, type AdminCall, type Command, type Parsed } from './cli-commands';
import { adminRefusalSentence } from './cli-refusal';

export type { AdminCall } from './cli-commands';

const DEFAULT_USER_URL = 'http://127.0.0.1:8082';

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

const USAGE = `usage: ${USAGE_LINES.join('\n       ')}`;

/** The user commands' usage lines, for `pnpm admin --help`. */
export const USER_USAGE = USAGE_LINES;

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
  // A CSV export is printed as it came (the API answers errors in JSON, read below).
  if (response.ok && response.headers.get('content-type')?.startsWith('text/csv') === true) {
    write(text);
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`admin API answered ${response.status} with a body that is not JSON`);
  }
  if (!response.ok) throw new Error(describeFailure(response.status, body, response.headers.get('x-refusal-reason')));
  write(`${JSON.stringify(body, null, 2)}\n`);
}
