import crypto from 'node:crypto';
import { API_KEY_PATTERN, constantTimeEqual, generateApiKey, hashSecret, isApiKeyShape } from './secrets';

describe('API key shape', () => {
  it('when a value is at_ followed by 29 letters or digits, then it has the API key shape', () => {
    expect(isApiKeyShape(`at_${'aZ9'.repeat(9)}xY`)).toBe(true);
  });

  it.each([
    ['28 characters after the prefix', `at_${'a'.repeat(28)}`],
    ['30 characters after the prefix', `at_${'a'.repeat(30)}`],
    ['another prefix', `tk_${'a'.repeat(29)}`],
    ['an upper-case prefix', `AT_${'a'.repeat(29)}`],
    ['a dash inside', `at_${'a'.repeat(28)}-`],
    ['an underscore inside', `at_${'a'.repeat(28)}_`],
    ['a non-ASCII letter', `at_${'a'.repeat(28)}é`],
    ['surrounding whitespace', ` at_${'a'.repeat(29)}`],
    ['a trailing newline', `at_${'a'.repeat(29)}\n`],
    ['nothing', ''],
  ])('when a value has %s, then it is not an API key', (_what, value) => {
    expect(isApiKeyShape(value)).toBe(false);
  });

  it('exports the pattern the contract names', () => {
    expect(API_KEY_PATTERN.source).toBe('^at_[A-Za-z0-9]{29}$');
  });
});

describe('generateApiKey', () => {
  it('when a key is generated, then it has the real shape', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^at_[A-Za-z0-9]{29}$/);
    expect(isApiKeyShape(key)).toBe(true);
  });

  it('when many keys are generated, then they are all distinct', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateApiKey()));
    expect(keys.size).toBe(2000);
  });

  it('when many keys are generated, then every one of the 62 characters appears (no narrowed alphabet)', () => {
    const seen = new Set(
      Array.from({ length: 400 }, () => generateApiKey().slice(3))
        .join('')
        .split(''),
    );
    expect(seen.size).toBe(62);
  });
});

describe('hashSecret', () => {
  it('when a secret is hashed, then the result is its SHA-256 in lowercase hex', () => {
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('when the same secret is hashed twice, then the hashes match; different secrets differ', () => {
    const key = generateApiKey();
    expect(hashSecret(key)).toBe(hashSecret(key));
    expect(hashSecret(key)).not.toBe(hashSecret(generateApiKey()));
  });

  it('when a key is hashed, then the hash does not contain the key', () => {
    const key = generateApiKey();
    expect(hashSecret(key)).not.toContain(key.slice(3));
    expect(hashSecret(key)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('constantTimeEqual', () => {
  it('when the strings are equal, then true', () => {
    const key = generateApiKey();
    expect(constantTimeEqual(key, `${key}`)).toBe(true);
    expect(constantTimeEqual('', '')).toBe(true);
  });

  it('when the strings differ in one character, then false', () => {
    expect(constantTimeEqual('at_aaaa', 'at_aaab')).toBe(false);
  });

  it('when the lengths differ, then false without throwing', () => {
    expect(constantTimeEqual('short', 'longer value')).toBe(false);
    expect(constantTimeEqual('abc', '')).toBe(false);
  });

  it('when strings have the same length in characters but not in bytes, then false without throwing', () => {
    expect(constantTimeEqual('é', 'e')).toBe(false);
    expect(constantTimeEqual('ab', 'é')).toBe(false);
  });

  it('when the strings differ only in case, then false', () => {
    expect(constantTimeEqual('AdminToken', 'admintoken')).toBe(false);
  });

  it('when the lengths differ, then the work is the same as for equal lengths: two 32-byte digests go through timingSafeEqual', () => {
    // A length check before the compare answers faster for a wrong length, telling the secret's length.
    const compare = jest.spyOn(crypto, 'timingSafeEqual');
    try {
      for (const [presented, expected] of [
        ['x', 'admin-token-0123456789'],
        ['admin-token-0123456789-and-more', 'admin-token-0123456789'],
        ['admin-token-0123456789', 'admin-token-0123456789'],
      ] as const) {
        compare.mockClear();
        constantTimeEqual(presented, expected);
        expect(compare).toHaveBeenCalledTimes(1);
        const [left, right] = compare.mock.calls[0] as [Buffer, Buffer];
        expect([left.length, right.length]).toEqual([32, 32]);
      }
    } finally {
      compare.mockRestore();
    }
  });
});
