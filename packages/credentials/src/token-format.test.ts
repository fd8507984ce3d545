import { generateApiKey, hashSecret, isApiKeyShape } from './secrets';
import { generateAccessToken, isWellFormedToken, shardTagOf, tokenShardTag } from './token-format';

const KEY_HASH = hashSecret(generateApiKey());

/** Replaces the character at `index` with a different one of the token alphabet. */
function garble(token: string, index: number): string {
  const current = token[index];
  const replacement = current === 'A' ? 'B' : 'A';
  return `${token.slice(0, index)}${replacement}${token.slice(index + 1)}`;
}

describe('generateAccessToken', () => {
  it('when a token is generated, then it starts with tk_', () => {
    expect(generateAccessToken(KEY_HASH).startsWith('tk_')).toBe(true);
  });

  it('when a token is generated, then it carries at least 256 bits: 43 base64url characters of body', () => {
    const token = generateAccessToken(KEY_HASH);
    expect(token).toMatch(/^tk_[A-Za-z0-9_-]{43}[0-9a-f]{4}[A-Za-z0-9_-]{6}$/);
    const body = Buffer.from(token.slice(3, 46), 'base64url');
    expect(body.length * 8).toBeGreaterThanOrEqual(256);
  });

  it('when many tokens are generated, then they are distinct', () => {
    const tokens = new Set(Array.from({ length: 2000 }, () => generateAccessToken(KEY_HASH)));
    expect(tokens.size).toBe(2000);
  });

  it('when tokens are generated, then none ever has the API-key shape', () => {
    for (let index = 0; index < 2000; index += 1) expect(isApiKeyShape(generateAccessToken(KEY_HASH))).toBe(false);
  });

  it('when a token is generated, then it is well formed', () => {
    for (let index = 0; index < 200; index += 1) expect(isWellFormedToken(generateAccessToken(KEY_HASH))).toBe(true);
  });

  it('when a token is generated, then it is URL- and header-safe as is', () => {
    const token = generateAccessToken(KEY_HASH);
    expect(encodeURIComponent(token)).toBe(token);
  });
});

describe('shard tag', () => {
  it('when a token is minted from a key, then it carries the first hex digits of the key hash as its tag', () => {
    const token = generateAccessToken(KEY_HASH);
    expect(tokenShardTag(token)).toBe(shardTagOf(KEY_HASH));
    expect(shardTagOf(KEY_HASH)).toBe(KEY_HASH.slice(0, 4));
  });
});

describe('isWellFormedToken', () => {
  it('when one character of the body is changed, then the checksum rejects it', () => {
    const token = generateAccessToken(KEY_HASH);
    for (const index of [3, 10, 25, 45, 46, 49]) expect(isWellFormedToken(garble(token, index))).toBe(false);
  });

  it('when one character of the checksum is changed, then it is rejected', () => {
    const token = generateAccessToken(KEY_HASH);
    for (const index of [50, 52, 55]) expect(isWellFormedToken(garble(token, index))).toBe(false);
  });

  it('when the token is truncated or extended, then it is rejected', () => {
    const token = generateAccessToken(KEY_HASH);
    expect(isWellFormedToken(token.slice(0, -1))).toBe(false);
    expect(isWellFormedToken(`${token}A`)).toBe(false);
  });

  it('when the prefix is wrong, then it is rejected', () => {
    const token = generateAccessToken(KEY_HASH);
    expect(isWellFormedToken(`at_${token.slice(3)}`)).toBe(false);
    expect(isWellFormedToken(`TK_${token.slice(3)}`)).toBe(false);
  });

  it('when a value is made up in the token shape, then the checksum rejects it', () => {
    expect(isWellFormedToken(`tk_${'A'.repeat(43)}0000AAAAAA`)).toBe(false);
  });

  it('when a value is an API key, a JWT or empty, then it is not a token', () => {
    expect(isWellFormedToken(`at_${'a'.repeat(29)}`)).toBe(false);
    expect(isWellFormedToken('eyJhbGciOiJIUzI1NiJ9.e30.sig')).toBe(false);
    expect(isWellFormedToken('')).toBe(false);
  });

  it('when the token has surrounding whitespace, then it is rejected', () => {
    const token = generateAccessToken(KEY_HASH);
    expect(isWellFormedToken(` ${token}`)).toBe(false);
    expect(isWellFormedToken(`${token}\n`)).toBe(false);
  });
});
