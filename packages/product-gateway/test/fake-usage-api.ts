import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { verifyServiceJwt, type ServiceJwtClaims } from '@platform/credentials';

/** Products and their pools as in CONTRACT §5 (the part the tests use). */
const POOL_OF: Record<number, number> = { 1: 1, 24: 1, 14: 14, 27: 14, 101: 14, 7: 7 };

/**
 * A stand-in for the user service's internal usage API (CONTRACT §7) over in-memory maps, for
 * the gateway's unit tests (tests/contract/product-gateway.int.test.ts runs against the real one): service JWT
 * check, the single and the batch route, credential → account, pool debit that never goes below 0, requestId replay.
 */
export interface FakeUsageApi {
  url: string;
  /** A key or token that authenticates as `accountId`. */
  addCredential(credential: string, accountId: number): void;
  setCredits(accountId: number, productId: number, credits: number): void;
  credits(accountId: number, productId: number): number | undefined;
  /** Every debit received (each item of a batch), with the verified JWT claims of its request. */
  calls: Array<{ body: Record<string, unknown>; claims: ServiceJwtClaims | undefined }>;
  /** The number of debits of every request received, in order (1 for a single debit). */
  batches: number[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** The next `count` requests answer `status` (e.g. 503) before doing anything. */
  failNext(count: number, status: number): void;
  /** Batches received from now on wait to be answered until `release`; `arrived` resolves with the first. */
  holdBatches(): { arrived: Promise<void>; release(): void };
  close(): Promise<void>;
}

export async function startFakeUsageApi(secret: string): Promise<FakeUsageApi> {
  const accounts = new Map<string, number>();
  const balances = new Map<string, number>();
  const replies = new Map<string, { digest: string; status: number; body: unknown }>();
  const calls: FakeUsageApi['calls'] = [];
  const batches: number[] = [];
  let failures: { count: number; status: number } = { count: 0, status: 503 };
  let held: { arrived(): void; released: Promise<void> } | undefined;
  const poolKey = (accountId: number, productId: number): string => `${accountId}:${POOL_OF[productId] ?? productId}`;

  /** One debit as the single route decides it: its status and body. */
  const debit = (body: Record<string, unknown>): { status: number; body: unknown } => {
    const { credential, productId, units, requestId } = body;
    if (typeof credential !== 'string' || typeof productId !== 'number' || typeof requestId !== 'string' || units !== 1) {
      return { status: 422, body: { code: 422, messages: { units: ['The selected units is invalid.'] } } };
    }
    const digest = JSON.stringify([credential, productId, units]);
    const replay = replies.get(requestId);
    if (replay) return replay.digest === digest ? replay : { status: 409, body: { code: 409, messages: 'Conflict.' } };
    const answer = (status: number, answerBody: unknown) => {
      replies.set(requestId, { digest, status, body: answerBody });
      return { status, body: answerBody };
    };
    const accountId = accounts.get(credential);
    if (accountId === undefined)
      return answer(401, { code: 401, messages: 'Access restricted. Check credits balance or enter the correct API key.' });
    const key = poolKey(accountId, productId);
    const credits = balances.get(key);
    if (credits === undefined || credits < units)
      return answer(403, { code: 403, messages: 'Access restricted. Check credits balance or enter the correct API key.' });
    balances.set(key, credits - units);
    return answer(200, { accountId, productId, credits: credits - units });
  };

  /** The JWT check and the injected failures, shared by both routes; true when the request was answered already. */
  const refused = (req: express.Request, res: express.Response, debits: Array<Record<string, unknown>>): boolean => {
    let claims: ServiceJwtClaims | undefined;
    try {
      claims = verifyServiceJwt(/^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '', { audience: 'user', secret });
    } catch {
      claims = undefined;
    }
    for (const body of debits) calls.push({ body, claims });
    batches.push(debits.length);
    if (failures.count > 0) {
      failures = { ...failures, count: failures.count - 1 };
      res
        .status(failures.status)
        .set('Retry-After', '2')
        .json({ code: failures.status, messages: 'Service temporarily unavailable. Try your call again later.' });
      return true;
    }
    if (!claims) {
      res.status(401).json({ code: 401, messages: 'Invalid service token.' });
      return true;
    }
    return false;
  };

  const app = express();
  app.use(express.json({ limit: '1mb' }));
  app.post('/internal/v1/usage', (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (refused(req, res, [body])) return;
    const { status, body: answer } = debit(body);
    res.status(status).json(answer);
  });
  // CONTRACT §7.1: each item as one debit; a refusal as its status and messages.
  app.post('/internal/v1/usage/batch', async (req, res) => {
    const items = ((req.body ?? {}) as { items?: Array<Record<string, unknown>> }).items ?? [];
    if (held) {
      held.arrived();
      await held.released;
    }
    if (refused(req, res, items)) return;
    res.json({
      items: items.map((item) => {
        const { status, body } = debit(item);
        return status === 200 ? { status, ...(body as object) } : { status, messages: (body as { messages: unknown }).messages };
      }),
    });
  });

  const server: Server = app.listen(0, '127.0.0.1');
  let connections = 0;
  server.on('connection', () => (connections += 1));
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    addCredential: (credential, accountId) => accounts.set(credential, accountId),
    setCredits: (accountId, productId, credits) => balances.set(poolKey(accountId, productId), credits),
    credits: (accountId, productId) => balances.get(poolKey(accountId, productId)),
    calls,
    batches,
    connections: () => connections,
    failNext(count, status) {
      failures = { count, status };
    },
    holdBatches() {
      let arrived = (): void => undefined;
      let release = (): void => undefined;
      const first = new Promise<void>((resolve) => (arrived = resolve));
      held = { arrived, released: new Promise<void>((resolve) => (release = resolve)) };
      return {
        arrived: first,
        release() {
          held = undefined;
          release();
        },
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
