/** What the store keeps per token (under the token's SHA-256, never the token itself). */
export interface TokenRecord {
  accountId: number;
  /** Key generation the token was minted under (CONTRACT §3). */
  generation: number;
  issuedAt: number;
  expiresAt: number;
}

export interface MintRequest {
  tokenHash: string;
  accountId: number;
  /** The generation the caller saw with the key; minting fails when the account has moved past it. */
  expectedGeneration: number;
  issuedAt: number;
  ttlSeconds: number;
}

/**
 * Token storage with the revocation invariant of CONTRACT §3. Two implementations: Redis
 * (services) and in-process memory (embedded quickstart). Each call is one round trip.
 */
export interface TokenStore {
  /** Stores the token with a TTL equal to its lifetime; returns the generation, or undefined when the key was rotated meanwhile. */
  mint(request: MintRequest): Promise<number | undefined>;
  /** The live record whose generation is still current, else undefined (unknown, expired, revoked). */
  lookup(tokenHash: string): Promise<TokenRecord | undefined>;
  /** Removes one token. */
  revoke(tokenHash: string): Promise<void>;
  /** Revokes every token of the account: raises its generation to max(current + 1, atLeast); returns the new value. */
  bumpGeneration(accountId: number, atLeast: number): Promise<number>;
  /** The account's current generation as the store knows it (undefined when it has none). */
  currentGeneration(accountId: number): Promise<number | undefined>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function encodeRecord(accountId: number, issuedAt: number, expiresAt: number): string {
  return `${accountId}:${issuedAt}:${expiresAt}`;
}

/** Parses `accountId:issuedAt:expiresAt:generation`. */
export function decodeRecord(value: string): TokenRecord | undefined {
  const texts = value.split(':');
  if (texts.length !== 4 || texts.some((text) => !/^[0-9]{1,15}$/.test(text))) return undefined;
  const [accountId, issuedAt, expiresAt, generation] = texts.map(Number) as [number, number, number, number];
  return { accountId, issuedAt, expiresAt, generation };
}
