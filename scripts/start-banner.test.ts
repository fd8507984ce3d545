import { generatedSecrets, type Platform } from './platform';
import { startBanner } from './start-banner';

const NAMED = `alice=${'a'.repeat(32)},bob:support=${'b'.repeat(32)}`;

/** The platform `startPlatform` returns for an environment, without starting anything. */
function platformFor(environment: NodeJS.ProcessEnv): Platform {
  const generated = generatedSecrets(environment);
  const url = (port: number) => `http://127.0.0.1:${port}`;
  return {
    services: [],
    urls: { auth: url(8081), user: url(8082), categorization: url(8083), notifier: url(8084) },
    adminToken: environment.ADMIN_TOKEN || generated.ADMIN_TOKEN,
    adminTokenGenerated: generated.ADMIN_TOKEN !== undefined,
    generatedServiceJwtSecret: generated.SERVICE_JWT_SECRET,
    embedded: [],
    dataDir: '/tmp/data',
    stop: () => Promise.resolve(),
  };
}

describe('pnpm start: the secrets it generates and the banner it prints', () => {
  it('when neither ADMIN_TOKEN nor ADMIN_TOKENS is set, then one admin token is generated and printed once, with its export', () => {
    const generated = generatedSecrets({});
    expect(generated.ADMIN_TOKEN).toMatch(/^[0-9a-f]{48}$/);
    const banner = startBanner(platformFor({ ADMIN_TOKEN: generated.ADMIN_TOKEN }));
    expect(banner).toContain('from ADMIN_TOKEN');
    const fresh = platformFor({});
    const printed = startBanner(fresh);
    expect(printed).toContain(`admin token     ${fresh.adminToken} (generated; set ADMIN_TOKEN or ADMIN_TOKENS to choose)`);
    expect(printed).toContain(`ADMIN_TOKEN=${fresh.adminToken}`);
  });

  it('when ADMIN_TOKENS names the admin tokens, then no extra admin token is generated, printed or exported', () => {
    expect(generatedSecrets({ ADMIN_TOKENS: NAMED })).not.toHaveProperty('ADMIN_TOKEN');
    const banner = startBanner(platformFor({ ADMIN_TOKENS: NAMED, SERVICE_JWT_SECRET: 's'.repeat(40) }));
    expect(banner).toContain('admin token     from ADMIN_TOKENS\n');
    expect(banner).not.toMatch(/ADMIN_TOKEN=|[0-9a-f]{48}/);
    expect(banner).not.toContain('a'.repeat(32));
  });

  it('when ADMIN_TOKEN is given, then it is neither replaced nor printed', () => {
    const given = 'g'.repeat(40);
    expect(generatedSecrets({ ADMIN_TOKEN: given })).not.toHaveProperty('ADMIN_TOKEN');
    expect(startBanner(platformFor({ ADMIN_TOKEN: given, SERVICE_JWT_SECRET: 's'.repeat(40) }))).not.toContain(given);
  });

  it('when SERVICE_JWT_SECRET is unset, then one is generated and exported; a given one is kept and never printed', () => {
    expect(generatedSecrets({}).SERVICE_JWT_SECRET).toMatch(/^[0-9a-f]{96}$/);
    expect(generatedSecrets({ SERVICE_JWT_SECRET: 's'.repeat(40) })).not.toHaveProperty('SERVICE_JWT_SECRET');
    expect(startBanner(platformFor({ ADMIN_TOKENS: NAMED, SERVICE_JWT_SECRET: 's'.repeat(40) }))).not.toContain('s'.repeat(40));
  });
});
