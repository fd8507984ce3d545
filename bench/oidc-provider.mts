/**
 * Baseline of `pnpm bench`: node-oidc-provider's client-credentials grant on a Redis adapter, in
 * its own process. The one client is the bench account (client_id = account id, client_secret =
 * API key) and the token endpoint is mounted at /oauth/token, so the request bytes are those of
 * our client-credentials scenario. The adapter is the Redis adapter of the library's own example
 * (example/adapters/redis.js), reduced to what this grant uses: one MULTI of SET and EXPIRE per
 * issued token.
 *   BENCH_CLIENT_ID, BENCH_CLIENT_SECRET, REDIS_URL
 */
import { generateKeyPairSync } from 'node:crypto';
import { Redis } from 'ioredis';
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { keyPrefix: 'bench-oidc:', enableAutoPipelining: true });

class RedisAdapter implements Adapter {
  constructor(private readonly name: string) {}

  private key(id: string): string {
    return `${this.name}:${id}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const multi = redis.multi().set(this.key(id), JSON.stringify(payload));
    if (expiresIn) multi.expire(this.key(id), expiresIn);
    await multi.exec();
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const data = await redis.get(this.key(id));
    return data === null ? undefined : (JSON.parse(data) as AdapterPayload);
  }

  findByUserCode(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  findByUid(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  async consume(id: string): Promise<void> {
    await redis.del(this.key(id));
  }

  async destroy(id: string): Promise<void> {
    await redis.del(this.key(id));
  }

  revokeByGrantId(): Promise<void> {
    return Promise.resolve();
  }
}

const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
const provider = new Provider('http://127.0.0.1', {
  adapter: RedisAdapter,
  clients: [
    {
      client_id: process.env.BENCH_CLIENT_ID ?? 'bench',
      client_secret: process.env.BENCH_CLIENT_SECRET ?? 'bench-secret',
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  features: { clientCredentials: { enabled: true }, devInteractions: { enabled: false } },
  routes: { token: '/oauth/token' },
  jwks: { keys: [{ ...signingKey, alg: 'RS256', use: 'sig' }] },
});

const server = provider.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`listening http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => redis.quit().finally(() => process.exit(0))));
