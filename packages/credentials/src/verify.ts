import type { Request } from 'express';
import { readBatch } from '@platform/runtime';
import { AppError, type Params } from '@platform/wire';
import type { AccessStore } from './access-store';
import type { ExplainSessionRefusal } from './page-session-keys';
import { missingCredential, refusedKey, type ExplainKeyRefusal, type PresentedCredential } from './refusals';
import { hashSecret, isApiKeyShape } from './secrets';
import { isWellFormedPageSession, isWellFormedToken } from './token-format';

/** Who a request authenticated as. */
export interface Principal {
  accountId: number;
  /** `pageSession`: the account page's credential (CONTRACT §4.7), accepted only where the verifier allows it. */
  kind: 'apiKey' | 'token' | 'pageSession';
  /** SHA-256 of the presented secret (for logs: use a prefix; for revocation: the key). */
  secretHash: string;
}

/**
 * Verifies an API key or an access token, each in one round trip to the access store (no
 * Postgres), shared by the checks of the same secret that arrive in one event-loop turn.
 */
export interface CredentialVerifier {
  verify(secret: string): Promise<Principal | undefined>;
  /**
   * As verify, but throws the contract's 401 for anything not valid, with its refusal reason: a
   * secret (undefined: none was sent) or what `presentedCredential` read.
   */
  require(credential: string | undefined | PresentedCredential): Promise<Principal>;
}

export interface CredentialVerifierOptions {
  access: AccessStore;
  /** Also accept account-page sessions: only for the account's own pages and data (CONTRACT §4.7). */
  pageSessions?: boolean;
  /** Tells a replaced key or a disabled account's key from an unknown one, when a key is refused. */
  explainKey?: ExplainKeyRefusal;
  /** Tells a disabled account's page session from an ended one, when a page session is refused. */
  explainSession?: ExplainSessionRefusal;
}

/**
 * Checks that share one read of the access store at most. SPEED: usage batches repeat their
 * customers' keys from request to request; at 100 (readBatch's default) the checks of one turn
 * were cut into reads of 100, each of which read its keys again. batch-100-accounts at 32
 * connections: the user service's CPU per debit 21 → 13 µs, 41,800 → 49,100 debits/s
 * (docs/benchmarks.md, "Batch debits at 32 connections"). One read is one Redis pipeline (on a
 * Cluster, one command per key), so 1000 keys at most per round trip.
 */
const CHECKS_PER_READ = 1000;

export function createCredentialVerifier(deps: CredentialVerifierOptions): CredentialVerifier {
  // A token: its record, read with its key's generation (one script each).
  const lookupToken = async (secret: string): Promise<Principal | undefined> => {
    const secretHash = hashSecret(secret);
    const record = await deps.access.lookupToken(secret, secretHash);
    if (!record) return undefined;
    return { accountId: record.accountId, kind: secret.startsWith('ps_') ? 'pageSession' : 'token', secretHash };
  };
  // API keys: every key of the batch read together (findKeys: one pipeline on one Redis server).
  const lookupKeys = async (keys: readonly string[]): Promise<(Principal | undefined)[]> => {
    const secretHashes = keys.map(hashSecret);
    const found = await deps.access.findKeys(secretHashes);
    return found.map((key, index) =>
      key ? { accountId: key.accountId, kind: 'apiKey', secretHash: secretHashes[index] as string } : undefined,
    );
  };
  // The checks of one secret asked in one turn share one lookup, sent after all of them arrived:
  // no cache, so a key or token revoked before a request arrived is refused to it (CONTRACT §3).
  const checks = readBatch(
    async (secrets: string[]) => {
      const keys: string[] = [];
      const tokens: string[] = [];
      for (const secret of secrets) (isApiKeyShape(secret) ? keys : tokens).push(secret);
      const [ofKeys, ofTokens] = await Promise.all([keys.length > 0 ? lookupKeys(keys) : [], Promise.all(tokens.map(lookupToken))]);
      const found = new Map<string, Principal | undefined>();
      keys.forEach((secret, index) => found.set(secret, ofKeys[index]));
      tokens.forEach((secret, index) => found.set(secret, ofTokens[index]));
      return found;
    },
    (): Principal | undefined => undefined,
    CHECKS_PER_READ,
  );
  // A secret of neither shape is refused at once, without joining a batch.
  const verify = async (secret: string): Promise<Principal | undefined> =>
    isApiKeyShape(secret) || isWellFormedToken(secret) || (deps.pageSessions === true && isWellFormedPageSession(secret))
      ? checks.load(secret)
      : undefined;
  return {
    verify,
    async require(credential) {
      const { secret, presented } =
        typeof credential === 'object' ? credential : { secret: credential, presented: credential !== undefined };
      if (!presented) throw missingCredential();
      const principal = secret === undefined ? undefined : await verify(secret);
      if (principal) return principal;
      // A token the store does not know is invalid_credential whatever the cause (a rotation or a
      // disabling removed it): only a key's own state, and a page session's key's, can be looked up.
      if (secret !== undefined && isApiKeyShape(secret)) throw refusedKey(hashSecret(secret), deps.explainKey);
      const { explainSession } = deps;
      if (secret !== undefined && explainSession !== undefined && deps.pageSessions === true && isWellFormedPageSession(secret)) {
        const sessionHash = hashSecret(secret);
        throw new AppError('unauthenticated', { reason: 'invalid_credential', explain: () => explainSession(sessionHash) });
      }
      throw new AppError('unauthenticated', { reason: 'invalid_credential' });
    },
  };
}

/**
 * The credential a request presents (CONTRACT §3): the `apiKey` parameter, or, when there is
 * none, `Authorization: Bearer <secret>`. A non-string `apiKey` counts as a wrong credential.
 */
export function presentedCredential(req: Request, params: Params, name = 'apiKey'): PresentedCredential {
  const value = params.get(name);
  if (value.kind === 'value') return { secret: value.value, presented: true };
  if (value.kind === 'invalid') return { secret: undefined, presented: true };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  if (match) return { secret: match[1], presented: true };
  return { secret: undefined, presented: (req.get('authorization') ?? '') !== '' };
}
