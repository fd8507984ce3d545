import { AppError } from '@platform/wire';
import {
  isWellFormedToken,
  missingCredential,
  verifyServiceJwt,
  type AccessStore,
  type ExplainKeyRefusal,
  type FailureLimit,
} from '@platform/credentials';
import { authenticateAccount, type AccountCredential, type FindActiveKey } from './account-auth';
import { tooMany } from './attempt-limits';

/** Who asks: a trusted caller (service JWT or admin token) or an account (only its own tokens). */
export type IntrospectionCaller =
  { kind: 'service'; name: string } | { kind: 'admin'; name: string } | { kind: 'account'; accountId: number };

/** What the caller presented on the introspection endpoint. */
export type PresentedCaller =
  { kind: 'bearer'; value: string; address: string } | { kind: 'account'; credential: AccountCredential } | { kind: 'none' };

/** RFC 7662 answer (CONTRACT §4.1, §9). */
export type Introspection =
  { active: false } | { active: true; client_id: string; sub: string; exp: number; iat: number; token_type: 'Bearer' };

export interface IntrospectionDeps {
  access: AccessStore;
  findKey: FindActiveKey;
  /** Why an unknown key was refused (a replaced key, a disabled account), looked up only for a final refusal. */
  explainKey?: ExplainKeyRefusal | undefined;
  /** The name of the admin token presented (ADMIN_TOKEN's is `admin`), or undefined when it is none (`adminTokenMatcher`). */
  matchAdminToken: (presented: string) => string | undefined;
  serviceJwtSecret: string | undefined;
  /**
   * The admin failure limit per client address (as on the admin APIs, `rl:admin-fail`): once an
   * address is over it, an admin token from it gets 429, the right one included, until its window ends.
   */
  adminFailures: FailureLimit;
  /** Milliseconds since the epoch. */
  now: () => number;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Authenticates the introspection caller (401 for anything else). */
export async function authenticateIntrospectionCaller(presented: PresentedCaller, deps: IntrospectionDeps): Promise<IntrospectionCaller> {
  switch (presented.kind) {
    case 'bearer': {
      const admin = deps.matchAdminToken(presented.value);
      if (admin === undefined && deps.serviceJwtSecret !== undefined && JWT_SHAPE.test(presented.value)) {
        const claims = verifyServiceJwt(presented.value, { audience: 'auth', secret: deps.serviceJwtSecret, now: deps.now });
        return { kind: 'service', name: claims.iss };
      }
      // An admin token, right or wrong: the admin failure limit decides first.
      const blockedFor = await deps.adminFailures.blockedFor(presented.address);
      if (blockedFor !== undefined) throw tooMany(blockedFor);
      if (admin !== undefined) return { kind: 'admin', name: admin };
      const overFor = await deps.adminFailures.recordFailure(presented.address);
      if (overFor !== undefined) throw tooMany(overFor);
      throw new AppError('unauthenticated');
    }
    case 'account': {
      const { key } = await authenticateAccount(deps.findKey, presented.credential, { requireCredits: false, explainKey: deps.explainKey });
      return { kind: 'account', accountId: key.accountId };
    }
    case 'none':
      throw missingCredential();
  }
}

const INACTIVE: Introspection = { active: false };

/** Unknown, expired, revoked, malformed or another account's token: `{"active": false}` only. */
export async function introspectToken(
  token: string,
  caller: IntrospectionCaller,
  deps: Pick<IntrospectionDeps, 'access' | 'now'>,
): Promise<Introspection> {
  if (!isWellFormedToken(token)) return INACTIVE;
  const record = await deps.access.lookupToken(token);
  if (!record || record.expiresAt * 1000 <= deps.now()) return INACTIVE;
  if (caller.kind === 'account' && caller.accountId !== record.accountId) return INACTIVE;
  const accountId = String(record.accountId);
  return { active: true, client_id: accountId, sub: accountId, exp: record.expiresAt, iat: record.issuedAt, token_type: 'Bearer' };
}
