import { randomUUID } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { AppError, renderError, type Envelope } from './errors';
import type { Health } from './health';
import type { Logger } from './logger';
import { createHttpMetrics, type HttpMetrics } from './metrics';
import { readOutputFormat, type OutputFormat } from './output-format';
import { Params } from './params';
import { sendBody } from './render';

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
  trustProxy?: boolean;
}

export interface HttpApp {
  app: Express;
  metrics: HttpMetrics;
  /** Adds the 404 and error handlers; call after mounting the routes. */
  finish(): Express;
}

function routeLabel(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  return typeof route?.path === 'string' ? `${req.baseUrl}${route.path}` : 'unmatched';
}

function bodyParserError(error: unknown): AppError | undefined {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') return new AppError('payload_too_large');
  if (typeof type === 'string' && (type.startsWith('entity.') || type.startsWith('encoding.') || type === 'charset.unsupported' || type === 'parameters.too.many')) {
    return new AppError('malformed_body');
  }
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
  app.set('trust proxy', options.trustProxy ?? false);
  app.set('etag', false);

  app.use((req, res, next) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const started = process.hrtime.bigint();
    const state: RequestLocals = {
      requestId,
      log: options.logger.child({ requestId }),
      envelope: 'codeMessages',
      challenge: true,
    };
    Object.assign(res.locals, state);
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const labels = { method: req.method, route: routeLabel(req), status: String(res.statusCode) };
      metrics.requests.inc(labels);
      metrics.duration.observe(labels, seconds);
      state.log.info('request', { ...labels, durationMs: Math.round(seconds * 1e5) / 100 });
    });
    next();
  });

  app.get('/health/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/health/ready', async (_req, res) => {
    const report = await options.health.report();
    res.status(report.ready ? 200 : 503).json(report.body);
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  app.get('/openapi.json', (_req, res) => {
    res.json(options.openapi);
  });

  app.use(express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'] }));
  app.use(express.urlencoded({ extended: false, limit: BODY_LIMIT, parameterLimit: 100 }));

  const notFound: RequestHandler = (_req, _res, next) => {
    next(new AppError('not_found'));
  };

  const onError: ErrorRequestHandler = (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const state = locals(res);
    const known = error instanceof AppError ? error : bodyParserError(error);
    if (!known) state.log.error('unhandled error', { error });
    const rendered = renderError(known ?? error, state.envelope);
    if (res.headersSent) return;
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
      app.use(notFound);
      app.use(onError);
      return app;
    },
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
