/**
 * Baselines of `pnpm bench`, in one process. The floor of a seed-flow issuance on this stack, with nothing of ours
 * in it: express.json(), the Bearer value Base64-decoded and SHA-256-hashed, and one Lua call
 * that reads the key record (account, generation) and writes the token record with its TTL.
 * It reads the key records the platform writes (same Redis, same prefix and layout).
 *
 * The plain balance read (`GET /account-balance`, Bearer token minted here): one Redis read of
 * the token record, one Postgres query of the account's pools (`@platform/accounts`), the JSON answer; what a balance
 * by token checked afresh (CONTRACT §3) against pools in Postgres costs when written the plain
 * way, with no batching of reads.
 */
import { createHash, randomBytes } from 'node:crypto';
import express from 'express';
import { Redis } from 'ioredis';
import { poolCreditsOf } from '@platform/accounts';
import { createPool } from '@platform/db';
import { createLogger } from '@platform/runtime';

const MINT = `local r = redis.call('HMGET', KEYS[1], 'a', 'g')
if not r[1] then return false end
redis.call('SET', KEYS[2], r[1] .. ':' .. ARGV[1] .. ':' .. r[2], 'EX', ARGV[2])
return r[1]`;
const prefix = process.env.REDIS_KEY_PREFIX ?? 'aap:';
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableAutoPipelining: true });
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const script = redis.script('LOAD', MINT) as Promise<string>;

const pool = createPool({
  connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  max: 10,
  logger: createLogger({ service: 'bench-floors', level: 'warn' }),
});

const app = express();
app.post('/oauth/token', express.json(), async (req, res) => {
  const keyHash = sha256(Buffer.from((req.get('authorization') ?? '').slice(7), 'base64').toString('latin1'));
  // The key's slot tag in front, so that the plain balance read finds the record from the token alone.
  const token = `${keyHash.slice(0, 4)}.${randomBytes(32).toString('base64url')}`;
  const expiresIn = Number((req.body as { expiresIn?: unknown }).expiresIn ?? 3600);
  const slot = `${prefix}{${keyHash.slice(0, 4)}}:`;
  const now = Math.floor(Date.now() / 1000);
  const account = await redis.evalsha(
    await script,
    2,
    `${slot}key:${keyHash}`,
    `${slot}tok:${sha256(token)}`,
    `${now}:${now + expiresIn}`,
    expiresIn,
  );
  if (account === null) res.status(401).json({ code: 401 });
  else res.json({ accessToken: token, expiresIn });
});
app.get('/account-balance', async (req, res) => {
  const token = (req.get('authorization') ?? '').slice(7);
  const record = await redis.get(`${prefix}{${token.slice(0, 4)}}:tok:${sha256(token)}`);
  if (record === null) {
    res.status(401).json({ code: 401 });
    return;
  }
  const pools = await poolCreditsOf(pool, Number(record.split(':', 1)[0]));
  res.json({ data: pools.map(({ poolId, credits }) => ({ productId: poolId, credits })) });
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`listening http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => Promise.all([redis.quit(), pool.end()]).finally(() => process.exit(0))));
