/** Property-based checks of the credential formats: arbitrary input never throws, and the shapes keep apart. */
import fc from 'fast-check';
import { generateApiKey, hashSecret, isApiKeyShape } from './secrets';
import { generateAccessToken, isWellFormedToken } from './token-format';

const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: fc.constantFrom('t', 'k', '_', 'a', 't', '-', '=', '\n', '\u0000', '😀'), maxLength: 60 }),
  fc.stringMatching(/^tk_[A-Za-z0-9_-]{49}$/),
  fc.stringMatching(/^at_[A-Za-z0-9]{29}$/),
);

describe('credential formats under arbitrary input', () => {
  it('when any string is checked, then the checks answer without throwing, and no value is both a key and a token', () => {
    fc.assert(
      fc.property(hostile, (value) => {
        const token = isWellFormedToken(value);
        const key = isApiKeyShape(value);
        expect(token && key).toBe(false);
        expect(hashSecret(value)).toMatch(/^[0-9a-f]{64}$/);
      }),
      { numRuns: 1000 },
    );
  });

  it('when a random string has the token shape, then its checksum refuses it (no store lookup for a made-up token)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^tk_[A-Za-z0-9_-]{49}$/), (made) => {
        expect(isWellFormedToken(made)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('when one character of a real token is changed, then it is no longer well-formed', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'),
        (position, replacement) => {
          const token = generateAccessToken(hashSecret(generateApiKey()));
          const index = 3 + (position % (token.length - 3));
          fc.pre(token[index] !== replacement);
          expect(isWellFormedToken(`${token.slice(0, index)}${replacement}${token.slice(index + 1)}`)).toBe(false);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('when keys and tokens are generated, then each has its own shape only', () => {
    for (let index = 0; index < 200; index += 1) {
      const token = generateAccessToken(hashSecret(generateApiKey()));
      const key = generateApiKey();
      expect([isWellFormedToken(token), isApiKeyShape(token)]).toEqual([true, false]);
      expect([isWellFormedToken(key), isApiKeyShape(key)]).toEqual([false, true]);
    }
  });
});
