import { isApiKeyShape } from './secrets';
import { generateAccessToken, isWellFormedToken } from './token-format';

/** Replaces the character at `index` with a different one of the token alphabet. */
function garble(token: string, index: number): string {
  const current = token[index];
  const replacement = current === 'A' ? 'B' : 'A';
  return `${token.slice(0, index)}${replacement}${token.slice(index + 1)}`;
}

describe('generateAccessToken', () => {
  it('when a token is generated, then it starts with tk_', () => {
    expect(generateAccessToken().startsWith('tk_')).toBe(true);
  });

  it('when a token is generated, then it carries at least 256 bits: 43 base64url characters of body', () => {
    const token = generateAccessToken();
    expect(token).toMatch(/^tk_[A-Za-z0-9_-]{49}$/);
    const body = Buffer.from(token.slice(3, 46), 'base64url');
    expect(body.length * 8).toBeGreaterThanOrEqual(256);
  });

  it('when many tokens are generated, then they are distinct', () => {
    const tokens = new Set(Array.from({ length: 2000 }, () => generateAccessToken()));
    expect(tokens.size).toBe(2000);
  });

  it('when tokens are generated, then none ever has the API-key shape', () => {
    for (let index = 0; index < 2000; index += 1) expect(isApiKeyShape(generateAccessToken())).toBe(false);
  });

  it('when a token is generated, then it is well formed', () => {
    for (let index = 0; index < 200; index += 1) expect(isWellFormedToken(generateAccessToken())).toBe(true);
  });

  it('when a token is generated, then it is URL- and header-safe as is', () => {
    const token = generateAccessToken();
    expect(encodeURIComponent(token)).toBe(token);
  });
});

describe('isWellFormedToken', () => {
  it('when one character of the body is changed, then the checksum rejects it', () => {
    const token = generateAccessToken();
    for (const index of [3, 10, 25, 45]) expect(isWellFormedToken(garble(token, index))).toBe(false);
  });

  it('when one character of the checksum is changed, then it is rejected', () => {
    const token = generateAccessToken();
    for (const index of [46, 48, 51]) expect(isWellFormedToken(garble(token, index))).toBe(false);
  });

  it('when the token is truncated or extended, then it is rejected', () => {
    const token = generateAccessToken();
    expect(isWellFormedToken(token.slice(0, -1))).toBe(false);
    expect(isWellFormedToken(`${token}A`)).toBe(false);
  });

  it('when the prefix is wrong, then it is rejected', () => {
    const token = generateAccessToken();
    expect(isWellFormedToken(`at_${token.slice(3)}`)).toBe(false);
    expect(isWellFormedToken(`TK_${token.slice(3)}`)).toBe(false);
  });

  it('when a value is made up in the token shape, then the checksum rejects it', () => {
    expect(isWellFormedToken(`tk_${'A'.repeat(49)}`)).toBe(false);
  });

  it('when a value is an API key, a JWT or empty, then it is not a token', () => {
    expect(isWellFormedToken(`at_${'a'.repeat(29)}`)).toBe(false);
    expect(isWellFormedToken('eyJhbGciOiJIUzI1NiJ9.e30.sig')).toBe(false);
    expect(isWellFormedToken('')).toBe(false);
  });

  it('when the token has surrounding whitespace, then it is rejected', () => {
    const token = generateAccessToken();
    expect(isWellFormedToken(` ${token}`)).toBe(false);
    expect(isWellFormedToken(`${token}\n`)).toBe(false);
  });
});
