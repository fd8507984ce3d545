import { AppError, rateLimited } from '@platform/wire';
import {
  generatePageSession,
  hashSecret,
  isApiKeyShape,
  missingCredential,
  refusedKey,
  type ExplainKeyRefusal,
  type IssueOutcome,
  type IssueRequest,
  type PresentedCredential,
} from '@platform/credentials';

/** How long a page session lives: as long as the page's token did (one hour). */
export const PAGE_SESSION_SECONDS = 3600;
/** Page sign-ins per key and minute, counted in the key's issuance window with its tokens. */
const PAGE_SESSIONS_PER_MINUTE = 60;

/** The ports a page sign-in needs: the access store's issuance and the account's e-mail. */
export interface PageSessionPorts {
  issue(request: IssueRequest): Promise<IssueOutcome>;
  findAccount(accountId: number): Promise<{ id: number; email: string } | undefined>;
  /** Why a key the store does not know was refused, looked up once the refusal is final. */
  explainKey?: ExplainKeyRefusal | undefined;
  /** Keeps which key bought the session (their hashes), so that its refusal can say why later. */
  rememberKey?: ((sessionHash: string, keyHash: string, ttlSeconds: number) => Promise<void>) | undefined;
}

export interface PageSession {
  session: string;
  expiresIn: number;
  account: { id: number; email: string };
}

/**
 * Signs the account page in (CONTRACT §4.7): the API key buys a page session whatever the
 * account's balance, so that a customer at 0 sees their account. The session sits in the access
 * store beside the key's tokens, under the key's generation: a rotation revokes it like any
 * token. Only the checks that accept page sessions (the account's own data) accept it.
 */
export async function openPageSession(ports: PageSessionPorts, credential: PresentedCredential, now = Date.now()): Promise<PageSession> {
  if (!credential.presented) throw missingCredential();
  const apiKey = credential.secret;
  if (apiKey === undefined || !isApiKeyShape(apiKey)) throw new AppError('unauthenticated');
  const keyHash = hashSecret(apiKey);
  const session = generatePageSession(keyHash);
  const outcome = await ports.issue({
    keyHash,
    token: session,
    issuedAt: Math.floor(now / 1000),
    ttlSeconds: PAGE_SESSION_SECONDS,
    limit: { points: PAGE_SESSIONS_PER_MINUTE, windowSeconds: 60 },
    anyBalance: true,
  });
  if (outcome.outcome === 'limited') {
    throw rateLimited(outcome.msBeforeNext);
  }
  if (outcome.outcome !== 'issued') throw refusedKey(keyHash, ports.explainKey);
  await ports.rememberKey?.(hashSecret(session), keyHash, PAGE_SESSION_SECONDS);
  const account = await ports.findAccount(outcome.accountId);
  if (!account) throw new AppError('unauthenticated');
  return { session, expiresIn: PAGE_SESSION_SECONDS, account: { id: account.id, email: account.email } };
}
