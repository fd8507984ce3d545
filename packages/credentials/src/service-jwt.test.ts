import jwt from 'jsonwebtoken';
import { AppError } from '@platform/wire';
import { signServiceJwt, verifyServiceJwt } from './service-jwt';

const secret = 's'.repeat(40);
const NOW = 1_800_000_000_000;
const now = () => NOW;
const nowSeconds = NOW / 1000;

function refused(run: () => unknown): boolean {
  try {
    run();
    return false;
  } catch (error) {
    return error instanceof AppError && error.code === 'unauthenticated';
  }
}

describe('service JWTs', () => {
  test('when a JWT is signed for an audience, then it verifies for that audience with its issuer and expiry', () => {
    const token = signServiceJwt({ issuer: 'categorization', audience: 'user', secret, ttlSeconds: 60 });
    const claims = verifyServiceJwt(token, { audience: 'user', secret });
    expect(claims.iss).toBe('categorization');
    expect(claims.aud).toBe('user');
    expect(claims.exp - (claims.iat ?? 0)).toBe(60);
    expect(jwt.decode(token, { complete: true })?.header.alg).toBe('HS256');
  });

  test.each([[0], [301], [1.5]])('when the lifetime asked for is %d seconds, then signing refuses', (ttlSeconds) => {
    expect(() => signServiceJwt({ issuer: 'x', audience: 'user', secret, ttlSeconds })).toThrow(RangeError);
  });

  test('when the issuer is empty, then signing refuses', () => {
    expect(() => signServiceJwt({ issuer: '', audience: 'user', secret, ttlSeconds: 60 })).toThrow(RangeError);
  });

  const sign = (claims: object, options: jwt.SignOptions = {}, key = secret) => jwt.sign(claims, key, { algorithm: 'HS256', ...options });

  test.each([
    ['another audience', sign({ iss: 'a', aud: 'auth', exp: nowSeconds + 60 })],
    ['another secret', sign({ iss: 'a', aud: 'user', exp: nowSeconds + 60 }, {}, 'o'.repeat(40))],
    ['an expired token', sign({ iss: 'a', aud: 'user', exp: nowSeconds - 60 })],
    ['no expiry', sign({ iss: 'a', aud: 'user' })],
    ['an expiry more than five minutes ahead', sign({ iss: 'a', aud: 'user', exp: nowSeconds + 400 })],
    ['no issuer', sign({ aud: 'user', exp: nowSeconds + 60 })],
    ['an empty issuer', sign({ iss: '', aud: 'user', exp: nowSeconds + 60 })],
    ['another algorithm (HS512)', sign({ iss: 'a', aud: 'user', exp: nowSeconds + 60 }, { algorithm: 'HS512' })],
    [
      'alg none',
      `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ iss: 'a', aud: 'user', exp: nowSeconds + 60 })).toString('base64url')}.`,
    ],
    ['garbage', 'not.a.jwt'],
  ])('when the JWT has %s, then 401 (AppError unauthenticated)', (_name, token) => {
    expect(refused(() => verifyServiceJwt(token, { audience: 'user', secret, now }))).toBe(true);
  });

  // The secrets are kept as key objects (MAX_SECRET_KEYS): each JWT still verifies with its own only.
  test('when JWTs are signed with many secrets in turn, then each verifies with its own secret only; an empty secret signs nothing', () => {
    const secrets = Array.from({ length: 12 }, (_, index) => `${index}`.padEnd(40, 'k'));
    const tokens = secrets.map((key) => signServiceJwt({ issuer: 'a', audience: 'user', secret: key, ttlSeconds: 60 }));
    tokens.forEach((token, index) => {
      expect(verifyServiceJwt(token, { audience: 'user', secret: secrets[index] as string }).iss).toBe('a');
      expect(refused(() => verifyServiceJwt(token, { audience: 'user', secret: secrets[(index + 1) % secrets.length] as string }))).toBe(
        true,
      );
    });
    expect(() => signServiceJwt({ issuer: 'a', audience: 'user', secret: '', ttlSeconds: 60 })).toThrow();
    expect(refused(() => verifyServiceJwt(tokens[0] as string, { audience: 'user', secret: '' }))).toBe(true);
  });

  test('when the expiry is exactly five minutes ahead, then it is accepted', () => {
    const token = sign({ iss: 'a', aud: 'user', exp: nowSeconds + 300 });
    expect(verifyServiceJwt(token, { audience: 'user', secret, now }).iss).toBe('a');
  });

  // Issue 45: `aud` is exactly the expected audience, not a list holding it.
  test.each([
    ['a list holding ours', ['auth', 'user']],
    ['a list of ours alone', ['user']],
  ])('when the audience is %s, then 401', (_name, aud) => {
    const token = sign({ iss: 'a', aud, exp: nowSeconds + 60 });
    expect(refused(() => verifyServiceJwt(token, { audience: 'user', secret, now }))).toBe(true);
  });

  test.each([
    ['an empty jti', ''],
    ['a numeric jti', 7],
    ['a jti of 129 characters', 'j'.repeat(129)],
  ])('when the JWT has %s, then 401', (_name, jti) => {
    expect(
      refused(() => verifyServiceJwt(sign({ iss: 'a', aud: 'user', exp: nowSeconds + 60, jti }), { audience: 'user', secret, now })),
    ).toBe(true);
  });

  test('when a JWT is signed with a jti, then the claims carry it; without one, none', () => {
    const withId = signServiceJwt({ issuer: 'a', audience: 'user', secret, ttlSeconds: 60, jti: 'id-1' });
    expect(verifyServiceJwt(withId, { audience: 'user', secret }).jti).toBe('id-1');
    expect(
      verifyServiceJwt(signServiceJwt({ issuer: 'a', audience: 'user', secret, ttlSeconds: 60 }), { audience: 'user', secret }).jti,
    ).toBeUndefined();
  });
});
