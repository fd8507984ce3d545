import type { Request, RequestHandler, Response } from 'express';
import { AppError, rateLimited } from '@platform/wire';
import { errorMessage, secretDigest, secretsEqual, type AdminRole } from '@platform/runtime';
import type { FailureLimit } from '@platform/credentials';
import { locals } from './request-state';
import { adminEdge } from './route-edge';
import { enterRoute } from './route-handler';

/** Every admin token is at least this long (CONTRACT §7): a shorter one is a start-up error. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

/** An admin token, the name it acts under (the actor in the audit log and in the logs) and its role (`admin` when not given). */
export interface NamedAdminToken {
  name: string;
  token: string;
  role?: AdminRole;
}

/** Methods a `support` token may use: reads only (CONTRACT §7, roles). */
const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

export interface AdminGuardOptions {
  /**
   * Failed attempts per client address (CONTRACT §9, as on the token endpoints). Unlike a
   * customer's key behind a shared address, an admin token has no neighbours: once an address is
   * over its limit, every admin call from it gets 429, the right token included, until its window
   * ends (so guessing is not sped up by the limit's end), and the limit stays per address.
   */
  failures?: FailureLimit;
}

/** The client address as the kernel's `trust proxy` setting (TRUST_PROXY) derives it. */
function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

function limitUnavailable(res: Response, error: unknown): void {
  locals(res).log.warn('admin failure limit unavailable', { error: errorMessage(error) });
}

/** The 401 of an admin route: a missing token is a wrong one too (CONTRACT §2, refusal reasons). */
const wrongAdminToken = (): AppError => new AppError('unauthenticated', { reason: 'wrong_admin_token' });

/** 429 when this failure took the address over its limit, else the 401; a limit store that fails leaves the 401. */
async function refusal(req: Request, res: Response, failures: FailureLimit | undefined): Promise<AppError> {
  if (failures === undefined) return wrongAdminToken();
  try {
    const blockedFor = await failures.recordFailure(clientAddress(req));
    if (blockedFor !== undefined) return rateLimited(blockedFor);
  } catch (error) {
    limitUnavailable(res, error);
  }
  return wrongAdminToken();
}

/** Undefined when the address may try; a limit store that fails lets the token decide. */
async function blocked(req: Request, res: Response, failures: FailureLimit | undefined): Promise<AppError | undefined> {
  if (failures === undefined) return undefined;
  try {
    const blockedFor = await failures.blockedFor(clientAddress(req));
    return blockedFor === undefined ? undefined : rateLimited(blockedFor);
  } catch (error) {
    limitUnavailable(res, error);
    return undefined;
  }
}

const ACTOR = new WeakMap<Response, string>();
const ROLE = new WeakMap<Response, AdminRole>();

/** The name of the admin token that authenticated this request (the audit log's actor). */
export function adminActor(res: Response): string {
  const actor = ACTOR.get(res);
  if (actor === undefined) throw new Error('adminActor: the request did not pass requireAdminToken');
  return actor;
}

/** The role of the admin token that authenticated this request (`admin` or `support`): what the console may offer. */
export function adminRole(res: Response): AdminRole {
  const role = ROLE.get(res);
  if (role === undefined) throw new Error('adminRole: the request did not pass requireAdminToken');
  return role;
}

/** `ADMIN_TOKEN` alone is the token named `admin`. */
function namedTokens(tokens: string | readonly NamedAdminToken[] | undefined): readonly NamedAdminToken[] {
  if (tokens === undefined) return [];
  return typeof tokens === 'string' ? [{ name: 'admin', token: tokens }] : tokens;
}

/**
 * The name of the admin token `presented` is, or undefined when it is none of `tokens`. SHA-256
 * digests are compared in constant time against every token (no early exit), so neither a token,
 * its length nor which one matched leaks through timing.
 */
export function adminTokenMatcher(tokens: readonly NamedAdminToken[]): (presented: string) => string | undefined {
  const expected = tokens.map(({ name, token }) => ({ name, digest: secretDigest(token) }));
  return (presented) => {
    let found: string | undefined;
    for (const candidate of expected) if (secretsEqual(presented, candidate.digest) && found === undefined) found = candidate.name;
    return found;
  };
}

/**
 * Guards an admin API (CONTRACT §7): `Authorization: Bearer <admin token>` before anything else;
 * it enters the admin routes' edge (`adminEdge`: JSON only, no WWW-Authenticate). Tokens are
 * compared as `adminTokenMatcher` does. No token refuses every call. A `support` token may read
 * only: any other method is a 403 `read_only_admin` before the route runs, whatever the route
 * (so a write route added later is covered without a change here).
 */
export function requireAdminToken(
  tokens: string | readonly NamedAdminToken[] | undefined,
  options: AdminGuardOptions = {},
): RequestHandler {
  const named = namedTokens(tokens);
  const match = adminTokenMatcher(named);
  const readOnly = new Set(named.filter((token) => token.role === 'support').map((token) => token.name));
  return (req, res, next) => {
    enterRoute(res, adminEdge);
    void blocked(req, res, options.failures).then(async (limited) => {
      if (limited !== undefined) return next(limited);
      const presented = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
      const name = presented === undefined ? undefined : match(presented);
      if (name === undefined) return next(await refusal(req, res, options.failures));
      if (readOnly.has(name) && !READ_METHODS.has(req.method)) return next(new AppError('read_only'));
      ACTOR.set(res, name);
      ROLE.set(res, readOnly.has(name) ? 'support' : 'admin');
      // Every admin call, reads included, is attributed: its log lines (the request line too) name the actor.
      const state = locals(res);
      state.log = state.log.child({ actor: name });
      next();
    });
  };
}
