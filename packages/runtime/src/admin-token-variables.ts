import type { z } from 'zod';
import { env } from './config';
import { namedSecretsVariable, type NamedSecret } from './named-secrets';

/** CONTRACT §7: every admin token is at least 32 characters; a shorter one is a start-up error. */
const ADMIN_TOKEN_MIN = 32;

/** The admin-token variables as a service's schema parses them. */
interface AdminTokenValues {
  ADMIN_TOKEN?: string | undefined;
  ADMIN_TOKENS: NamedSecret[];
}

/**
 * ADMIN_TOKEN and ADMIN_TOKENS (CONTRACT §7), parsed the same way by every service that takes
 * admin tokens: ADMIN_TOKENS is a `name[:role]=token,…` list beside or instead of ADMIN_TOKEN (whose
 * name is `admin`). With `required` (every start but the embedded quickstart) ADMIN_TOKEN must
 * be set unless ADMIN_TOKENS names a token. Spread into the schema's object; add
 * `checkAdminTokens` as its refinement and read the tokens with `adminTokensOf`.
 */
export function adminTokenVariables(required: boolean, environment: NodeJS.ProcessEnv) {
  const named = (environment.ADMIN_TOKENS ?? '').trim() !== '';
  const token = env
    .secret(ADMIN_TOKEN_MIN)
    .describe(
      "The admin token (≥ 32 characters), named `admin`: the admin APIs of the user and categorization services, and a Bearer caller of the auth service's introspection. Required unless `ADMIN_TOKENS` names a token; under `pnpm start`, generated and printed once when neither is set. Never logged.",
    );
  return {
    ADMIN_TOKEN: required && !named ? token : token.optional(),
    ADMIN_TOKENS: namedSecretsVariable(ADMIN_TOKEN_MIN).describe(
      "Named admin tokens `name=token,name:role=token` beside or instead of `ADMIN_TOKEN`, the same list in each service (CONTRACT §7, docs/operator.md): the name is the audit log's actor, the role `admin` (default) or `support` (GET only). Each token ≥ 32 characters; names of letters, digits, `.`, `_`, `-`, each once; no token twice, none named `admin` while `ADMIN_TOKEN` is set. Unset: none.",
    ),
  };
}

/** ADMIN_TOKENS neither names `admin` nor repeats ADMIN_TOKEN while ADMIN_TOKEN is set (a schema's `superRefine`). */
export function checkAdminTokens(parsed: AdminTokenValues, context: z.RefinementCtx): void {
  if (parsed.ADMIN_TOKEN === undefined) return;
  if (parsed.ADMIN_TOKENS.some((named) => named.name === 'admin' || named.token === parsed.ADMIN_TOKEN))
    context.addIssue({ code: 'custom', path: ['ADMIN_TOKENS'], message: 'names admin or repeats ADMIN_TOKEN (whose name is admin)' });
}

/** Every admin token with the name it acts under and its role: ADMIN_TOKEN as `admin` (role admin), then ADMIN_TOKENS. */
export function adminTokensOf(parsed: AdminTokenValues): NamedSecret[] {
  const admin: NamedSecret[] = parsed.ADMIN_TOKEN === undefined ? [] : [{ name: 'admin', token: parsed.ADMIN_TOKEN, role: 'admin' }];
  return [...admin, ...parsed.ADMIN_TOKENS];
}
