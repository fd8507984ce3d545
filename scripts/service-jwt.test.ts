import { verifyServiceJwt } from '@platform/credentials';
import { serviceJwt } from './service-jwt';

const SECRET = 'service-jwt-cli-test-secret-0123456789abcdef';

describe('pnpm admin service-jwt', () => {
  it('when asked for a user-audience token, then it prints a JWT the user service accepts', () => {
    const token = serviceJwt(['user', 'whois-api'], { SERVICE_JWT_SECRET: SECRET });
    expect(() => verifyServiceJwt(token, { audience: 'user', secret: SECRET })).not.toThrow();
  });

  it('when two tokens are printed, then each carries its own jti (single use: the user service refuses a replay)', () => {
    const jtis = [0, 1].map(
      () => verifyServiceJwt(serviceJwt(['user'], { SERVICE_JWT_SECRET: SECRET }), { audience: 'user', secret: SECRET }).jti,
    );
    expect(jtis[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(jtis[1]).not.toBe(jtis[0]);
  });

  it('when the audience is not a service, then it explains the usage', () => {
    expect(() => serviceJwt(['billing'], { SERVICE_JWT_SECRET: SECRET })).toThrow(/usage: pnpm admin service-jwt/);
  });

  it('when SERVICE_JWT_SECRET is missing, then it names the variable', () => {
    expect(() => serviceJwt(['user'], {})).toThrow(/SERVICE_JWT_SECRET/);
  });
});
