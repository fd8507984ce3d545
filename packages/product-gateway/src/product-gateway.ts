import { randomUUID } from 'node:crypto';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { enterRoute, formatOf, handler, productEdge, respond } from '@platform/kernel';
import { type OutputFormat, type Params } from '@platform/wire';
import { newJti, signServiceJwt } from '@platform/credentials';
import { readLookupRequest } from './lookup-request';
import { createUsageClient, createUsageTransport, type UsageClient } from './usage-client';
import { createCoalescingUsageClient, type CoalesceOptions } from './usage-coalescer';

/** A product call that passed the credential and parameter checks and was debited one credit. */
export interface AcceptedCall {
  /** Normalized lookup target (IDNA ASCII, lower case), or an IP address. */
  domainName: string;
  accountId: number;
  productId: number;
  /** Credits left in the pool after this call. */
  credits: number;
  /** The usage API's idempotency key for this call. */
  requestId: string;
  /** The format the kernel decided for the request (`outputFormat`, CONTRACT §2). */
  outputFormat: OutputFormat;
}

/** The product's own work for an accepted call: its result (or the promise of it) is rendered as JSON or XML. */
export type LookupHandler = (call: AcceptedCall, req: Request) => unknown;

type Signer = { serviceJwtSecret: string } | { signJwt: () => string };

export type ProductGatewayOptions = Signer & {
  /** Base URL of the user service (USER_URL). */
  userUrl: string;
  /** The product this app serves; its pool is debited (product 24 debits the lookup pool of product 1). */
  productId: number;
  /** `iss` of the service JWT. Default `product-<productId>`. */
  issuer?: string;
  /** Kept-alive connections to the user service at most. Default 64. */
  connections?: number;
  /**
   * The most a call waits for its debit, the retries included; then it answers 503 (CONTRACT §1:
   * within 5 s). Default 5 s.
   */
  timeoutMs?: number;
  /** Extra attempts after a network error or 5xx, while `timeoutMs` lasts (same requestId, so never a double debit). Default 2. */
  retries?: number;
  /**
   * How debits reach the user service (CONTRACT §7.1). Default: coalesced, concurrent calls
   * gathered into one `POST /internal/v1/usage/batch` for up to 2 ms or 1,000 calls
   * (`{ windowMs, maxItems }` picks other bounds); `false`: one `POST /internal/v1/usage` per call.
   * Either way each call waits for its own debit.
   */
  coalesce?: CoalesceOptions | false;
};

export interface ProductGateway {
  /**
   * Middleware: checks the credential and `domainName`, debits one credit, stores the
   * AcceptedCall (read it with `acceptedCall(res)`) and calls next. Errors go to the app's
   * error handler in the ErrorMessage envelope, so mount it in an app made by `createHttpApp`.
   */
  meter: RequestHandler;
  /** GET and POST on `path`: the checks and the debit, then `lookup`, rendered in the requested format. */
  routes(path: string, lookup: LookupHandler): Router;
  /** Closes the gateway's kept-alive connections to the user service (at shutdown). */
  close(): Promise<void>;
}

const CALL = 'productCall';

const JWT_TTL_SECONDS = 60;

/** The AcceptedCall that `meter` stored for this request. */
export function acceptedCall(res: Response): AcceptedCall {
  const call = (res.locals as Record<string, unknown>)[CALL] as AcceptedCall | undefined;
  if (!call) throw new Error('acceptedCall(res) used on a route without the gateway meter');
  return call;
}

/**
 * The credential-and-credits middleware of the domain-registration-lookup family (CONTRACT
 * §4.2): the API key or token in `apiKey` or `Authorization: Bearer`, `domainName` from the
 * query (GET) or the JSON body (POST), one credit per accepted call through the user service's
 * internal usage API, errors as `{"ErrorMessage": {"errorCode", "msg"}}` in JSON or XML.
 */
export function createProductGateway(options: ProductGatewayOptions): ProductGateway {
  const issuer = options.issuer ?? `product-${options.productId}`;
  const signJwt =
    'signJwt' in options
      ? options.signJwt
      : // One JWT per request to the usage API (a coalesced batch, each retry): its jti is accepted
        // once, so none is reused. Measured (issue 45): about 160 µs of CPU per request, sign,
        // verify and the user service's Redis SET NX together (SECURITY.md, the jti row).
        () => signServiceJwt({ issuer, audience: 'user', secret: options.serviceJwtSecret, ttlSeconds: JWT_TTL_SECONDS, jti: newJti() });
  const clientOptions = {
    userUrl: options.userUrl,
    signJwt,
    connections: options.connections ?? 64,
    timeoutMs: options.timeoutMs ?? 5000,
    retries: options.retries ?? 2,
  };
  const usage: UsageClient =
    options.coalesce === false
      ? createUsageClient(clientOptions)
      : createCoalescingUsageClient(createUsageTransport(clientOptions), options.coalesce ?? {});

  const accept = async (req: Request, res: Response, params: Params): Promise<AcceptedCall> => {
    const lookup = readLookupRequest(req, res, params);
    const requestId = randomUUID();
    const grant = await usage.debit({ credential: lookup.credential, productId: options.productId, units: 1, requestId });
    return {
      domainName: lookup.domainName,
      accountId: grant.accountId,
      productId: options.productId,
      credits: grant.credits,
      requestId,
      outputFormat: formatOf(res),
    };
  };

  const meter: RequestHandler = (req, res, next) => {
    accept(req, res, enterRoute(res, productEdge)).then((call) => {
      (res.locals as Record<string, unknown>)[CALL] = call;
      next();
    }, next);
  };

  return {
    meter,
    close: () => usage.close(),
    routes(path, lookup) {
      const router = Router();
      const serve = handler(productEdge, async (req, res, params) => {
        const call = await accept(req, res, params);
        const body = await lookup(call, req);
        respond(res, 200, body);
      });
      router.get(path, serve);
      router.post(path, serve);
      return router;
    },
  };
}
