import { randomUUID } from 'node:crypto';
import express, {
  type ErrorRequestHandler,
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { publicCors, type PublicEndpoints } from './cors';
import { asDependencyError } from './dependency-failure';
import type { TrustProxy } from './config';
import { AppError, renderError, type Envelope, type ErrorCode } from './errors';
import type { Health } from './health';
import type { Logger } from './logger';
import { createHttpMetrics, type HttpMetrics } from './metrics';
import { readOutputFormat, type OutputFormat } from './output-format';
import { Params } from './params';
import { sendBody } from './render';
import { secretDigest, secretsEqual } from './secret-compare';

export const BODY_LIMIT = '16kb';
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Per-request state kept on `res.locals`. */
export interface RequestLocals {
  requestId: string;
  log: Logger;
  envelope: Envelope;
  /** Whether a 401 carries WWW-Authenticate (public endpoints only, CONTRACT §9). */
  challenge: boolean;
  outputFormat?: OutputFormat;
}

export function locals(res: Response): RequestLocals {
  return res.locals as RequestLocals;
}

export interface HttpAppOptions {
  /** Service name: realm of WWW-Authenticate, metrics and log label. */
  service: string;
  logger: Logger;
  health: Health;
  openapi: Record<string, unknown>;
  /** Which proxies may name the client address in X-Forwarded-For (TRUST_PROXY); default none. */
  trustProxy?: TrustProxy;
  /** When set, `GET /metrics` needs `Authorization: Bearer <metricsToken>` (METRICS_TOKEN). */
  metricsToken?: string | undefined;
  /** The public endpoints (CONTRACT §2): they answer CORS requests and preflights from any origin. */
  publicEndpoints?: PublicEndpoints;
  /**
   * Envelope of errors raised before a route picks its own (body size and syntax, 404).
   * Default `codeMessages`; product apps of the lookup family answer `errorMessage` throughout.
   */
  envelope?: Envelope;
}

export interface HttpApp {
  app: Express;
  metrics: HttpMetrics;
  /** Adds the 404 and error handlers; call after mounting the routes. */
  finish(): Express;
}

/** The template of a route (`/user-service/account-balance`, `/accounts/:id`) as mounted. */
function routeTemplate(req: Request, route: unknown): string | undefined {
  const path = (route as { path?: unknown } | null | undefined)?.path;
  if (typeof path === 'string') return `${req.baseUrl}${path}`;
  if (Array.isArray(path)) {
    // app.get(['/user-service/x', '/service/x']): the literal alternative that matched, else the first.
    const templates = path.filter((candidate): candidate is string => typeof candidate === 'string');
    const chosen = templates.find((candidate) => candidate === req.path) ?? templates[0];
    return chosen === undefined ? undefined : `${req.baseUrl}${chosen}`;
  }
  return undefined;
}

interface MetricSeries {
  labels: { method: string; route: string; status: string };
  requests: { inc(): void };
  duration: { observe(seconds: number): void };
}

// Where `req.route` is kept for a request the kernel does not serve (another express app).
const ROUTE = Symbol('route');

interface WatchedRequest extends Request {
  [ROUTE]?: unknown;
}

/** The kernel's state of the request, found through `req.res.locals` (no property added to the request). */
function kernelState(req: Request): RequestState | undefined {
  const state: unknown = req.res?.locals;
  return state instanceof RequestState ? state : undefined;
}

/**
 * Records, on the request's kernel state, the template of every route the router dispatches the
 * request to. The router assigns `req.route` while `req.baseUrl` still holds the mount path; by
 * the time the response finishes (an error that left a mounted router, say) baseUrl has been
 * reset. One accessor on the app's request prototype does it for every request, instead of a
 * property defined on each request.
 *
 * Why this patch of express's request prototype stays: it is the one place that gives every
 * route, the kernel's, the services' and a product app's, its template label for the metrics
 * and the request line, whatever envelope or wrapper the route uses, with nothing for a route to
 * remember. Its cost was measured (issue "hot paths"): 30–70 ns per assignment against 7–40 ns
 * for a plain property, one assignment per request, under 0.1 µs of a request that costs
 * several hundred; the alternative, every handler recording its own template, costs the same.
 */
function watchRoutes(prototype: object): void {
  if (Object.hasOwn(prototype, ROUTE)) return;
  Object.defineProperty(prototype, ROUTE, { value: undefined, writable: true });
  Object.defineProperty(prototype, 'route', {
    configurable: true,
    enumerable: true,
    get(this: WatchedRequest): unknown {
      const state = kernelState(this);
      return state ? state.routeObject : this[ROUTE];
    },
    set(this: WatchedRequest, value: unknown) {
      const state = kernelState(this);
      if (!state) {
        this[ROUTE] = value;
        return;
      }
      state.routeObject = value;
      const template = routeTemplate(this, value);
      if (template !== undefined) state.route = template;
    },
  });
}

const levels = new WeakMap<Logger, Map<string, boolean>>();

/** Whether `logger` writes `level`, remembered per logger (the services never change a level at run time). */
function levelOf(logger: Logger, level: string): boolean {
  let known = levels.get(logger);
  if (known === undefined) {
    known = new Map();
    levels.set(logger, known);
  }
  let enabled = known.get(level);
  if (enabled === undefined) {
    enabled = logger.isLevelEnabled(level);
    known.set(level, enabled);
  }
  return enabled;
}

/**
 * `res.locals` of a request: the contract's RequestLocals, with the child logger made only when
 * something logs (most requests log only their request line, which needs no child).
 */
class RequestState implements RequestLocals {
  challenge = true;
  outputFormat?: OutputFormat;
  /** Route template for metrics and the request line; `unmatched` until the router finds one. */
  route = 'unmatched';
  /** What the router assigned to `req.route`. */
  routeObject: unknown = undefined;
  private child: Logger | undefined;

  constructor(
    private readonly logger: Logger,
    public requestId: string,
    public envelope: Envelope,
    /** performance.now() when the kernel saw the request. */
    readonly started: number,
  ) {}

  get log(): Logger {
    if (this.child === undefined) this.child = this.logger.child({ requestId: this.requestId });
    return this.child;
  }

  set log(logger: Logger) {
    this.child = logger;
  }

  /** The child logger if one was made (a route logged, or replaced it), else undefined. */
  madeLogger(): Logger | undefined {
    return this.child;
  }

  /** Whether the request's logger writes records of `level`, without making the child logger. */
  levelEnabled(level: string): boolean {
    // A child logger writes at its parent's level; winston's check allocates, so it is asked once per level.
    return this.child === undefined ? levelOf(this.logger, level) : this.child.isLevelEnabled(level);
  }
}

/**
 * Whether a record of `level` on the request's logger would be written. Check it before building
 * an expensive record: asking `locals(res).log` makes the request's child logger.
 */
export function logLevelEnabled(res: Response, level: string): boolean {
  const state: unknown = res.locals;
  return state instanceof RequestState ? state.levelEnabled(level) : locals(res).log.isLevelEnabled(level);
}

/** body-parser's error types that a client causes, and the contract error each one is. */
const BODY_PARSER_ERRORS: ReadonlyMap<string, ErrorCode> = new Map<string, ErrorCode>([
  ['entity.too.large', 'payload_too_large'],
  ['entity.parse.failed', 'malformed_body'],
  ['entity.verify.failed', 'malformed_body'],
  ['encoding.unsupported', 'malformed_body'],
  ['charset.unsupported', 'malformed_body'],
  ['request.aborted', 'malformed_body'],
  ['request.size.invalid', 'malformed_body'],
  ['parameters.too.many', 'malformed_body'],
  ['depth.exceeded', 'malformed_body'],
]);

/**
 * Errors raised by express itself for a bad request, as contract errors: body-parser's (413,
 * 400) and the router's 400 for a path that is not valid percent-encoding. Anything else
 * (including body-parser's own stream faults) stays unknown: a 500, logged.
 */
function requestError(error: unknown): AppError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, status } = error as { type?: unknown; status?: unknown };
  const code = typeof type === 'string' ? BODY_PARSER_ERRORS.get(type) : undefined;
  if (code !== undefined) return new AppError(code, { cause: error });
  if (error instanceof URIError && status === 400)
    return new AppError('malformed_body', { message: 'Malformed request URL.', cause: error });
  return undefined;
}

/**
 * The HTTP kernel every service shares: request id, body parsing with the 16 KiB limit,
 * per-request child logger, metrics, health, OpenAPI, and one error handler that renders the
 * closed error model in the route's envelope and format.
 */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const app = express();
  const metrics = createHttpMetrics(options.service);
  app.disable('x-powered-by');
  // Never `true`: it would take the client-written left-most X-Forwarded-For entry and let a
  // client choose its own address for rate limits (config refuses it).
  app.set('trust proxy', options.trustProxy ?? false);
  app.set('etag', false);

  watchRoutes(app.request);
  const envelope = options.envelope ?? 'codeMessages';
  const logger = options.logger;

  // The metric series of each method × route × status, made once: prom-client would otherwise
  // hash a labels object twice per request.
  const series = new Map<string, MetricSeries>();
  const seriesOf = (method: string, route: string, status: number): MetricSeries => {
    const key = `${method} ${status} ${route}`;
    let found = series.get(key);
    if (found === undefined) {
      const labels = { method, route, status: String(status) };
      found = { labels, requests: metrics.requests.labels(labels), duration: metrics.duration.labels(labels) };
      series.set(key, found);
    }
    return found;
  };

  // Runs as the response's 'finish' listener: metrics and the request line.
  function onFinish(this: Response): void {
    const req = this.req;
    const state = this.locals as RequestLocals as RequestState;
    const seconds = (performance.now() - state.started) / 1e3;
    const series = seriesOf(req.method, state.route, this.statusCode);
    series.requests.inc();
    series.duration.observe(seconds);
    // Formatting a line costs more than the rest of the kernel: skip it when the level drops it.
    if (!levelOf(logger, 'info')) return;
    const fields = { ...series.labels, durationMs: Math.round(seconds * 1e5) / 100 };
    const child = state.madeLogger();
    if (child !== undefined) child.info('request', fields);
    else logger.info('request', { requestId: state.requestId, ...fields });
  }

  app.use((req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const state = new RequestState(logger, requestId, envelope, performance.now());
    res.locals = state;
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', onFinish);
    next();
  });

  for (const [path, methods] of Object.entries(options.publicEndpoints ?? {})) app.use(path, publicCors(methods));

  const jsonBody = express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'] });
  const formBody = express.urlencoded({ extended: false, limit: BODY_LIMIT, parameterLimit: 100 });
  app.use((req, res, next) => {
    // What both parsers do first for a request without a body (type-is's hasBody), without
    // running either: most requests (GET) have none.
    if (req.headers['transfer-encoding'] === undefined && Number.isNaN(Number(req.headers['content-length']))) {
      if (!Reflect.has(req, 'body')) req.body = undefined;
      next();
      return;
    }
    void jsonBody(req, res, (error?: unknown) => {
      if (error !== undefined) next(error);
      else void formBody(req, res, next);
    });
  });

  const notFound: RequestHandler = (_req, _res, next) => {
    next(new AppError('not_found'));
  };

  const onError: ErrorRequestHandler = (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const state = locals(res);
    const known = asDependencyError(error) ?? requestError(error);
    const rendered = renderError(known ?? error, state.envelope);
    if (!known) state.log.error('unhandled error', { error });
    else if (known.code === 'internal') state.log.error('internal error', { error: known });
    else if (rendered.status >= 500) state.log.warn('request failed', { code: known.code, error: known });
    if (res.headersSent) {
      // Part of a body is out: cut the connection so the client cannot take it for a whole one.
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(rendered.headers)) res.setHeader(name, value);
    if (rendered.status === 401 && state.challenge) {
      const authorization = req.get('authorization') ?? '';
      if (/^bearer\s/i.test(authorization)) {
        res.setHeader('WWW-Authenticate', `Bearer realm="${options.service}", error="invalid_token"`);
      } else if (/^basic\s/i.test(authorization)) {
        res.setHeader('WWW-Authenticate', 'Basic realm="auth"');
      }
    }
    const format = state.envelope === 'oauth' ? 'JSON' : (state.outputFormat ?? readOutputFormat(new Params(req.query, req.body), false));
    sendBody(res, rendered.status, format === 'XML' ? rendered.xml.value : rendered.body, format, rendered.xml.root);
  };

  return {
    app,
    metrics,
    finish() {
      // After the service's routes: the requests that matter most do not walk past these.
      app.get('/health/live', (_req, res) => {
        res.json({ status: 'ok' });
      });
      app.get('/health/ready', async (_req, res) => {
        const report = await options.health.report();
        res.status(report.ready ? 200 : 503).json(report.body);
      });
      app.get('/metrics', metricsGuard(options.metricsToken), async (_req, res) => {
        res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
      });
      app.get('/openapi.json', (_req, res) => {
        res.json(options.openapi);
      });
      app.use(notFound);
      app.use(onError);
      return app;
    },
  };
}

/**
 * METRICS_TOKEN: with a token, `/metrics` answers 401 (code/messages, JSON) unless the request
 * carries it as a Bearer token; SHA-256 digests are compared in constant time. Without one,
 * the endpoint stays open.
 */
function metricsGuard(token: string | undefined): RequestHandler {
  if (token === undefined) return (_req, _res, next) => next();
  const expected = secretDigest(token);
  return (req, res, next) => {
    const state = locals(res);
    state.challenge = false;
    state.outputFormat = 'JSON';
    const presented = /^Bearer +(\S+) *$/i.exec(req.get('authorization') ?? '')?.[1];
    next(presented !== undefined && secretsEqual(presented, expected) ? undefined : new AppError('unauthenticated'));
  };
}

/** Wraps an async handler with the envelope it answers errors in. */
export function handler(
  envelope: Envelope,
  fn: (req: Request, res: Response) => Promise<void> | void,
  options: { challenge?: boolean } = {},
): RequestHandler {
  return async (req, res, next) => {
    const state = locals(res);
    state.envelope = envelope;
    state.challenge = options.challenge ?? true;
    try {
      await fn(req, res);
    } catch (error) {
      next(error);
    }
  };
}
