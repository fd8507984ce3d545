import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  /** A postgres:// URL that the ordinary `pg` driver connects to (one connection at a time). */
  url: string;
  close(): Promise<void>;
}

/**
 * A real Postgres engine (PGlite) inside this process, served on a loopback port so that the
 * services reach it through the same `pg` code path as a real server. `dataDir` undefined keeps
 * it in memory.
 */
export async function startEmbeddedPostgres(dataDir?: string): Promise<EmbeddedPostgres> {
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true });
  // pg_trgm: the operator's account search indexes e-mails by trigrams (user migrations).
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const db = await PGlite.create(dataDir ?? 'memory://', { extensions: { pg_trgm } });
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1' });
  await server.start();
  const address = server.getServerConn();
  return {
    url: `postgres://postgres@${address}/postgres?sslmode=disable`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
