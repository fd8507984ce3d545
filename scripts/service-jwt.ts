import { z } from 'zod';
import { env, parseEnv } from '@platform/runtime';
import { newJti, signServiceJwt } from '@platform/credentials';

const USAGE = 'usage: pnpm admin service-jwt <audience: auth|user> [issuer] [ttlSeconds ≤ 300]';

/** Prints a service JWT signed with SERVICE_JWT_SECRET, for calling internal APIs by hand: single use (it carries a fresh `jti`). */
export function serviceJwt(args: string[], environment: NodeJS.ProcessEnv): string {
  const [audience, issuer = 'operator', ttl = '300'] = args;
  if (audience !== 'auth' && audience !== 'user') throw new Error(USAGE);
  const { SERVICE_JWT_SECRET } = parseEnv(z.object({ SERVICE_JWT_SECRET: env.secret(32) }), environment);
  return signServiceJwt({ secret: SERVICE_JWT_SECRET, audience, issuer, ttlSeconds: Number(ttl), jti: newJti() });
}
