/**
 * What a fresh service JWT per usage request costs: a `jti` is single-use, so the product gateway
 * signs one per request and the user service verifies each. jsonwebtoken, given the secret as a
 * string, first tries it as a PEM key: about 450 µs of CPU each way, against 8 µs with a secret
 * KeyObject (service-jwt.ts, SPEED). So the secret must reach jsonwebtoken as a KeyObject, to sign
 * and to verify: checked on the arguments jsonwebtoken gets, not by timing (a bound on CPU time
 * failed on a loaded CI machine).
 */
import { KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { signServiceJwt, verifyServiceJwt } from './service-jwt';
import { newJti } from './service-jwt-replay';

const SECRET = 'service-jwt-cost-test-secret-0123456789';

afterEach(() => jest.restoreAllMocks());

const keyKind = (key: unknown): string => (key instanceof KeyObject ? `KeyObject ${key.type}` : typeof key);

describe('the cost of a fresh service JWT', () => {
  it('when a JWT is signed and verified, then jsonwebtoken gets the secret as a secret KeyObject both times (not a string it would first try as a PEM key)', () => {
    const sign = jest.spyOn(jwt, 'sign');
    const verify = jest.spyOn(jwt, 'verify');
    const token = signServiceJwt({ issuer: 'cost-test', audience: 'user', secret: SECRET, ttlSeconds: 60, jti: newJti() });
    verifyServiceJwt(token, { audience: 'user', secret: SECRET });

    expect({ sign: sign.mock.calls.map((call) => keyKind(call[1])), verify: verify.mock.calls.map((call) => keyKind(call[1])) }).toEqual({
      sign: ['KeyObject secret'],
      verify: ['KeyObject secret'],
    });
  });
});
