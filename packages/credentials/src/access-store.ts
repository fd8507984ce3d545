/**
 * What issuance and every credential check need of an active API key, kept by the user service
 * beside the tokens (Redis, or memory in the embedded quickstart) so that neither reads Postgres
 * (CONTRACT §3). Postgres stays the authority: see access-reconciler.ts.
 */
export interface KeyAccess {
  accountId: number;
  /** accounts.key_generation when the key was made active: tokens minted from it carry it. */
  generation: number;
  /** The account's pools that hold credits (> 0); empty when every pool is at 0. */
  creditedPools: readonly number[];
}

/** A key's access record under the key's SHA-256 (hex). */
export interface KeyAccessRecord extends KeyAccess {
  keyHash: string;
}

/** An active key as a credential check sees it. */
export interface ActiveKey {
  accountId: number;
  generation: number;
  /** False when every credit pool of the account is at 0 (or it holds none). */
  hasCredits: boolean;
}

/** What the store keeps per token (under the token's SHA-256, never the token itself). */
export interface TokenRecord {
  accountId: number;
  /** Generation of the key the token was minted from (CONTRACT §3). */
  generation: number;
  issuedAt: number;
  expiresAt: number;
  /** SHA-256 of the API key it was minted from: the token lives as long as that key's record. */
  keyHash: string;
}

export interface IssueRequest {
  keyHash: string;
  /** The token (generateAccessToken(keyHash)); the store keeps only its hash. */
  token: string;
  /** RFC 6749 client_id: when given, the key's account must be this one. */
  accountId?: number;
  issuedAt: number;
  ttlSeconds: number;
  /** Issuances allowed per window for this key's account (TOKEN_RATE_PER_ACCOUNT). */
  limit: { points: number; windowSeconds: number };
  /** A page session (CONTRACT §4.7): issued whatever the account's credits. */
  anyBalance?: boolean;
}

export type IssueOutcome =
  | { outcome: 'issued'; accountId: number; generation: number }
  /** Unknown or inactive key, or another account than the client_id named. */
  | { outcome: 'unknown_key' }
  | { outcome: 'no_credits' }
  | { outcome: 'limited'; msBeforeNext: number };

/**
 * The writes the user service makes before it answers a change (CONTRACT §3), and the
 * reconciliation makes after a loss. Each call is one round trip per key.
 */
export interface AccessWriter {
  /** Replaces the records (a generation is never lowered: a lower one would let revoked tokens through). */
  putKeys(records: readonly KeyAccessRecord[]): Promise<void>;
  /**
   * Removes the records: the keys are no longer active, and every token minted from them is
   * refused. Their tokens are removed too (their memory returns at once, CONTRACT §3).
   */
  deleteKeys(keyHashes: readonly string[]): Promise<void>;
  /**
   * A rotation (CONTRACT §3): the new key starts with the replaced key's issuance window, count and
   * end, so TOKEN_RATE_PER_ACCOUNT counts per account across rotations. Call after the replaced
   * key's record is gone (its count is final) and before the new key's record exists.
   */
  carryIssuanceWindow(fromKeyHash: string, toKeyHash: string): Promise<void>;
  /** Marks a pool as holding credits or not in the records of these keys (records that do not exist stay absent). */
  setPoolCredit(keyHashes: readonly string[], poolId: number, credited: boolean): Promise<void>;
}

/**
 * What a full reconciliation needs beyond the writer: every key the store holds anything of, so
 * that what Postgres does not know as an active key goes (a Postgres restore, CONTRACT §3: keys
 * and tokens of the lost timeline are in Redis and nowhere in Postgres).
 */
export interface AccessSweep {
  /**
   * Calls `visit` with the hashes of the keys the store holds anything of (a record, a token set,
   * an issuance window), a batch at a time, one batch after the other; a key may come in more than
   * one batch. On a Redis Cluster, every master serving its slots is scanned.
   */
  storedKeys(visit: (keyHashes: readonly string[]) => Promise<void>): Promise<void>;
  /** Removes everything of these keys: the record, every token, the token set, the issuance window. */
  forgetKeys(keyHashes: readonly string[]): Promise<void>;
}

/**
 * Key records and tokens (CONTRACT §3). Two implementations: Redis (services) and in-process
 * memory (embedded quickstart), with the same rules. Every call is one round trip.
 */
export interface AccessStore extends AccessWriter, AccessSweep {
  /** Issuance: the key's record, its credits, the issuance window and the token write, at once. */
  issue(request: IssueRequest): Promise<IssueOutcome>;
  /** The active key with this hash, else undefined. */
  findKey(keyHash: string): Promise<ActiveKey | undefined>;
  /**
   * The active keys with these hashes, in order (undefined for each that is not): the credential
   * checks of one event-loop turn, read together. Rejects when any read fails.
   */
  findKeys(keyHashes: readonly string[]): Promise<(ActiveKey | undefined)[]>;
  /**
   * The live record of a well-formed token whose key is still active under the same generation,
   * else undefined. `tokenHash`: its SHA-256 when the caller has it already.
   */
  lookupToken(token: string, tokenHash?: string): Promise<TokenRecord | undefined>;
  /** Removes one token. */
  revokeToken(token: string): Promise<void>;
  /**
   * Who the store is: an id that changes whenever its data may have been lost (Redis run_id), and
   * the marker the last reconciliation left (undefined: never; see reconciledMarkerOf).
   */
  identity(): Promise<{ serverId: string; reconciledFor: string | undefined }>;
  /** Records that the store was reconciled with Postgres (the marker names both, reconciledMarkerOf). */
  markReconciled(marker: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** `accountId:issuedAt:expiresAt:generation:keyHash`, as both stores keep a token. */
export function encodeTokenRecord(record: TokenRecord): string {
  return `${record.accountId}:${record.issuedAt}:${record.expiresAt}:${record.generation}:${record.keyHash}`;
}

const TOKEN_RECORD = /^([0-9]{1,15}):([0-9]{1,15}):([0-9]{1,15}):([0-9]{1,15}):([0-9a-f]{64})$/;

/** Parses a token record; undefined for anything else. */
export function decodeTokenRecord(value: string): TokenRecord | undefined {
  const match = TOKEN_RECORD.exec(value);
  if (!match) return undefined;
  const [, accountId, issuedAt, expiresAt, generation, keyHash] = match as unknown as [string, string, string, string, string, string];
  return {
    accountId: Number(accountId),
    issuedAt: Number(issuedAt),
    expiresAt: Number(expiresAt),
    generation: Number(generation),
    keyHash,
  };
}
