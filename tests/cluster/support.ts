/**
 * The local cluster for a test file (`startPlatform({ mode: 'cluster' })` of
 * @platform/testing/platform): started once in beforeAll on a block of ports found free, with the
 * file's own SMTP capture, and taken down in afterAll. Clients reach the services through
 * HAProxy's fronts, or one replica directly.
 */
import type { Pool } from 'pg';
import { signServiceJwt } from '@platform/credentials';
import { createPool } from '@platform/db';
import { silentLogger, startSmtpCapture, uniqueId, type SmtpCapture } from '@platform/testing';
import {
  haproxyCommand,
  haproxySocket,
  haproxyStat,
  httpStatus,
  waitFor,
  type ClusterState,
  type HttpService,
} from '@platform/testing/cluster';
import { startPlatform, type ClusterPlatform } from '@platform/testing/platform';
import { bearer, call, seedBearer, type Reply } from '../contract/support/http';

export interface Cluster {
  state: ClusterState;
  smtp: SmtpCapture;
  /** Straight to the primary (through HAProxy), for checks on the ledger. */
  pool: Pool;
  /** HAProxy's front of a service. */
  front(service: HttpService): string;
  /** One replica of a service, 0-based, bypassing HAProxy. */
  replica(service: HttpService, index: number): string;
  pid(name: string): number;
  createAccount(credits: Record<number, number>): Promise<{ id: number; apiKey: string; email: string }>;
  token(base: string, apiKey: string): Promise<Reply>;
  balance(base: string, credential: string): Promise<Reply>;
  rotate(base: string, apiKey: string): Promise<Reply>;
  debit(base: string, body: { credential: string; productId: number; units?: number; requestId: string }): Promise<Reply>;
  /** HAProxy's view of a server or of a backend (server `BACKEND`), from its statistics. */
  haproxyServer(backend: string, server: string): Promise<HaproxyServer>;
  /** A command to HAProxy's runtime API that answers nothing when it succeeds (`disable health user/user-1`); else throws its answer. */
  haproxy(command: string): Promise<void>;
}

export interface HaproxyServer {
  /** UP, DOWN, … */
  status: string;
  /** Requests sent again (retries) and to another server (redispatches). */
  retries: number;
  redispatches: number;
  /** Requests on it now (scur). */
  sessions: number;
  /** Times the balancer chose it (lbtot), and its failed connections (econ) and responses (eresp). */
  chosen: number;
  connectionErrors: number;
  responseErrors: number;
}

export function useCluster(serviceEnv: Record<string, string> = {}): () => Cluster {
  let cluster: Cluster | undefined;
  let smtp: SmtpCapture | undefined;
  let platform: ClusterPlatform | undefined;
  beforeAll(async () => {
    smtp = await startSmtpCapture();
    // CLUSTER_KEEP_FILES=1 keeps the state folder (logs, data) of a failed run to read.
    platform = await startPlatform({ mode: 'cluster', smtpUrl: smtp.url, serviceEnv });
    cluster = makeCluster(platform, smtp);
  }, 240_000);
  afterAll(async () => {
    // Also when the cluster did not start: an open SMTP server would keep jest from exiting.
    await cluster?.pool.end();
    await smtp?.close();
    await platform?.stop();
  }, 120_000);
  return () => {
    if (!cluster) throw new Error('the cluster did not start');
    return cluster;
  };
}

function makeCluster({ state, urls }: ClusterPlatform, smtp: SmtpCapture): Cluster {
  const admin = bearer(state.env.ADMIN_TOKEN as string);
  const jwt = (): string =>
    signServiceJwt({ issuer: 'cluster-test', audience: 'user', secret: state.env.SERVICE_JWT_SECRET as string, ttlSeconds: 300 });
  return {
    state,
    smtp,
    pool: createPool({ connectionString: state.env.DATABASE_DIRECT_URL as string, logger: silentLogger(), max: 2 }),
    front: (service) => urls[service],
    replica: (service, index) => `http://127.0.0.1:${state.ports.replicas[service][index]}`,
    pid(name) {
      const entry = state.processes.find((process) => process.name === name);
      if (!entry) throw new Error(`no process ${name}`);
      return entry.pid;
    },
    async createAccount(credits) {
      const email = `${uniqueId('cluster')}@example.test`;
      const reply = await call(urls.user, '/admin/v1/accounts', {
        headers: admin,
        json: { email, credits },
      });
      if (reply.status !== 201) throw new Error(`account not created: ${reply.status} ${reply.text}`);
      return { ...(reply.json() as { id: number; apiKey: string }), email };
    },
    token: (base, apiKey) =>
      call(base, '/oauth/token', { headers: seedBearer(apiKey), json: { grantType: 'access_token', expiresIn: 3600 } }),
    balance: (base, credential) => call(base, '/user-service/account-balance', { query: { apiKey: credential, productId: '1' } }),
    rotate: (base, apiKey) => call(base, '/user-service/api-key/generate', { query: { currentApiKey: apiKey } }),
    debit: (base, body) => call(base, '/internal/v1/usage', { headers: bearer(jwt()), json: body }),
    async haproxyServer(backend, server) {
      const column = await haproxyStat(haproxySocket(state.dir), backend, server);
      return {
        status: column('status'),
        retries: Number(column('wretr')),
        redispatches: Number(column('wredis')),
        sessions: Number(column('scur')),
        chosen: Number(column('lbtot')),
        connectionErrors: Number(column('econ')),
        responseErrors: Number(column('eresp')),
      };
    },
    async haproxy(command) {
      const answer = (await haproxyCommand(haproxySocket(state.dir), command)).trim();
      if (answer !== '') throw new Error(`HAProxy refused "${command}": ${answer}`);
    },
  };
}

/** Waits until the replica on `port` answers /health/ready with 200 and HAProxy counts it UP again. */
export async function waitForReplica(cluster: Cluster, service: HttpService, index: number): Promise<void> {
  await waitFor(async () => (await httpStatus(`${cluster.replica(service, index)}/health/ready`)) === 200, 60_000, 'the replica');
  await waitFor(
    async () => (await cluster.haproxyServer(service, `${service}-${index + 1}`)).status === 'UP',
    30_000,
    'HAProxy to count the replica UP',
  );
}

/** The usage rows of an account's ledger, by requestId. */
export async function ledgerByRequest(pool: Pool, accountId: number): Promise<Map<string, number[]>> {
  const ledger = await pool.query<{ request_id: string; delta: string }>(
    "SELECT request_id, delta FROM credit_ledger WHERE account_id = $1 AND cause = 'usage'",
    [accountId],
  );
  const rows = new Map<string, number[]>();
  for (const row of ledger.rows) rows.set(row.request_id, [...(rows.get(row.request_id) ?? []), Number(row.delta)]);
  return rows;
}
