/**
 * What a fresh service JWT per usage request costs (issue 45): a `jti` is single-use, so the
 * product gateway signs one per request and the user service verifies each. With the secret as a
 * KeyObject a sign and a verify take about 8 µs of CPU each (45–70 µs the pair under jest);
 * given a string, jsonwebtoken 9 first tried it as a PEM key and took about 450 µs each (750 µs
 * the pair under jest). CPU time, not wall time, and a bound far from both: a loaded machine
 * does not fail it, the string secret does.
 */
import { signServiceJwt, verifyServiceJwt } from './service-jwt';
import { newJti } from './service-jwt-replay';

const SECRET = 'service-jwt-cost-test-secret-0123456789';
const ROUNDS = 400;

function signAndVerify(): void {
  const token = signServiceJwt({ issuer: 'cost-test', audience: 'user', secret: SECRET, ttlSeconds: 60, jti: newJti() });
  verifyServiceJwt(token, { audience: 'user', secret: SECRET });
}

describe('the cost of a fresh service JWT', () => {
  it('when a JWT is signed and verified, then both take under 250 µs of CPU together', () => {
    for (let index = 0; index < 50; index += 1) signAndVerify();
    const before = process.cpuUsage();
    for (let index = 0; index < ROUNDS; index += 1) signAndVerify();
    const used = process.cpuUsage(before);
    expect((used.user + used.system) / ROUNDS).toBeLessThan(250);
  });
});
