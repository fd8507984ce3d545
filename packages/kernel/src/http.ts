import { randomUUID } from 'node:crypto';
import express, {
  type ErrorRequestHandler,
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { Server } from 'node:http';
import { createBodyParsing, DECODE_FAILED } from './body-parsing';
import { createAppServer } from './http-server';
import { publicCorsStep, type PublicEndpoints } from './cors';
import { asDependencyError } from './dependency-failure';
import { type TrustProxy, type Health, type Logger, createHttpMetrics, registerReadiness, type HttpMetrics } from '@platform/runtime';
import { AppError, isRefusalStatus, REFUSAL_HEADER, renderError, type Envelope, type ErrorCode, type RefusalFinding } from '@platform/wire';
import { kernelStateOf, levelOf, RequestState, watchRoutes } from './request-state';
import { watchFinishedResponses } from './finished-responses';
import { respond } from './respond';
import { routeEdge } from './route-edge';
import { mountOperations, type MetricsListener, type MetricsPlacement } from './operations-endpoints';

export type { MetricsListener } from './operations-endpoints';

export { formatOf, locals, logLevelEnabled, type RequestLocals } from './request-state';

export { BODY_LIMIT } from './body-parsing';
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

interface MetricSeries {
  labels: { method: string; route: string; status: string };
  requests: { inc(): void };
  duration: { observe(seconds: number): void };
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
  /** METRICS_PORT: `/metrics` is not served here (404) but by `metricsListener()`'s app, on that port. */
  metricsPort?: number | undefined;
  /** The metrics of another app of the same service, counted into (one registry, so the metrics port serves them all). */
  metrics?: HttpMetrics | undefined;
  /** The public endpoints (CONTRACT §2): they answer CORS requests and preflights from any origin. */
  publicEndpoints?: PublicEndpoints;
  /**
   * Envelope of errors raised before a route picks its own (body size and syntax, 404).
   * Default `codeMessages`; product apps of the lookup family answer `errorMessage` throughout.
   */
  envelope?: Envelope;
  /** Paths whose JSON bodies may exceed the common 16 KiB (path → limit, `'1mb'`): only where the contract says so. */
  largeJsonBodies?: Readonly<Record<string, string>>;
}

export interface HttpApp {
  app: Express;
  metrics: HttpMetrics;
  /** Adds the 404 and error handlers; call after mounting the routes. */
  finish(): Express;
  /** With `metricsPort`: the port and an app that serves this one's `/metrics` (METRICS_TOKEN too) and nothing else (runtime's `serve({metrics})`). */
  metricsListener(): MetricsListener | undefined;
}

/** body-parser's error types that a client causes, and the contract error each one is. */
const BODY_PARSER_ERRORS: ReadonlyMap<string, ErrorCode> = new Map<string, ErrorCode>([
  ['entity.too.large', 'payload_too_large'],
  ['entity.parse.failed', 'malformed_body'],
  ['entity.verify.failed', 'malformed_body'],
  [DECODE_FAILED, 'malformed_body'],
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
export function createHttpApp(
  options: HttpAppOptions,
  metricsAt: MetricsPlacement = options.metricsPort === undefined ? 'here' : 'apart',
): HttpApp {
  const app = express();
  // Whoever listens (a service's serve(), a test) gets the kernel's server: the same app, with
  // requests and responses made with its prototypes (why: http-server.ts).
  app.listen = ((...args: Parameters<Server['listen']>) => createAppServer(app).listen(...args)) as Express['listen'];
  const metrics = options.metrics ?? createHttpMetrics(options.service);
  if (options.metrics === undefined) registerReadiness(metrics, options.health);
  app.disable('x-powered-by');
  // Never `true`: it would take the client-written left-most X-Forwarded-For entry and let a
  // client choose its own address for rate limits (config refuses it).
  app.set('trust proxy', options.trustProxy ?? false);
  app.set('etag', false);

  watchRoutes(app.request);
  const envelope = options.envelope ?? 'codeMessages';
  // The edge of a request until it enters a route's (404, body errors, plain express handlers).
  const defaultEdge = routeEdge(envelope);
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

  // Runs when node reports the response finished (finished-responses.ts): metrics and the request line.
  const onFinish = (res: Response, state: RequestState): void => {
    const seconds = (performance.now() - state.started) / 1e3;
    const series = seriesOf(res.req.method, state.route, res.statusCode);
    series.requests.inc();
    series.duration.observe(seconds);
    // Formatting a line costs more than the rest of the kernel: skip it when the level drops it.
    if (!levelOf(logger, 'info')) return;
    // Each field by name: an object spread followed by more properties costs Node 20 microseconds
    // (docs/benchmarks.md, "Object spreads on Node 20").
    const { method, route, status } = series.labels;
    const durationMs = Math.round(seconds * 1e5) / 100;
    const child = state.madeLogger();
    // A refusal says why (CONTRACT §2): the reason the response carries, never the secret.
    const reason = isRefusalStatus(res.statusCode) ? res.getHeader(REFUSAL_HEADER) : undefined;
    if (reason !== undefined) {
      if (child !== undefined) child.info('request', { method, route, status, durationMs, reason });
      else logger.info('request', { requestId: state.requestId, method, route, status, durationMs, reason });
    } else if (child !== undefined) child.info('request', { method, route, status, durationMs });
    else logger.info('request', { requestId: state.requestId, method, route, status, durationMs });
  };
  watchFinishedResponses();

  const cors = publicCorsStep(options.publicEndpoints ?? {});
  const parseBody = createBodyParsing(options.largeJsonBodies);
  // The kernel's work before any route, in one layer (each layer is one more router step on
  // every request): request id, state and metrics, CORS (a preflight ends here), the body.
  app.use((req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const state = new RequestState(logger, req, requestId, defaultEdge, performance.now(), onFinish);
    res.locals = state;
    res.setHeader('X-Request-Id', requestId);
    if (!cors(req, res)) parseBody(req, res, next);
  });

  const notFound: RequestHandler = (_req, _res, next) => {
    next(new AppError('not_found'));
  };

  // Answers an error; `explained`: what its deferred lookup found (AppErrorOptions.explain).
  const answerError = (error: unknown, known: AppError | undefined, req: Request, res: Response, explained?: RefusalFinding): void => {
    const state = kernelStateOf(res);
    const { edge } = state;
    const rendered = renderError(known ?? error, edge.envelope, explained);
    if (!known) state.log.error('unhandled error', { error });
    else if (known.code === 'internal') state.log.error('internal error', { error: known });
    else if (rendered.status >= 500) state.log.warn('request failed', { code: known.code, error: known });
    if (res.headersSent) {
      // Part of a body is out: cut the connection so the client cannot take it for a whole one.
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(rendered.headers)) res.setHeader(name, value);
    if (rendered.status === 401 && edge.challenge) {
      const authorization = req.get('authorization') ?? '';
      if (/^bearer\s/i.test(authorization)) {
        // RFC 6750 §3: the reason is the challenge's error_description (a token, no quote in it).
        const description = rendered.reason === undefined ? '' : `, error_description="${rendered.reason}"`;
        res.setHeader('WWW-Authenticate', `Bearer realm="${options.service}", error="invalid_token"${description}`);
      } else if (/^basic\s/i.test(authorization)) {
        res.setHeader('WWW-Authenticate', 'Basic realm="auth"');
      }
    }
    respond(res, rendered.status, state.outputFormat === 'XML' ? rendered.xml.value : rendered.body, rendered.xml.root);
  };

  const onError: ErrorRequestHandler = (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const known = asDependencyError(error) ?? requestError(error);
    const explain = known?.explain;
    if (explain === undefined) return answerError(error, known, req, res);
    // Only now is the refusal final: its lookup (a replaced key, a disabled account) runs here.
    explain().then(
      (found) => answerError(error, known, req, res, found),
      (failure: unknown) => {
        kernelStateOf(res).log.warn('refusal reason lookup failed', { error: failure });
        answerError(error, known, req, res);
      },
    );
  };

  return {
    app,
    metrics,
    finish() {
      // After the service's routes: the requests that matter most do not walk past these.
      mountOperations(app, {
        service: options.service,
        health: options.health,
        openapi: options.openapi,
        metrics,
        metricsToken: options.metricsToken,
        metricsAt,
        envelope,
      });
      app.use(notFound);
      app.use(onError);
      return app;
    },
    metricsListener() {
      const { service, health, openapi, metricsToken, metricsPort } = options;
      if (metricsPort === undefined) return undefined;
      return {
        port: metricsPort,
        app: createHttpApp({ service, logger, health, openapi, metricsToken, envelope, metrics }, 'only').finish(),
      };
    },
  };
}
