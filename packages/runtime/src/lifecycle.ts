import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Health } from './health';
import { flushTraces } from './trace-context';
import type { Logger } from './logger';
import { errorMessage } from './error-message';

/** Something that runs until stopped: an HTTP service, a consumer, a relay. */
export interface RunningService {
  name: string;
  /** Base URL of its HTTP listener. */
  url: string;
  port: number;
  /** Base URL of its metrics listener, when `/metrics` is served on a port of its own (METRICS_PORT). */
  metricsUrl?: string;
  /** Marks not-ready, drains in-flight work, closes its clients. Safe to call twice. */
  stop(): Promise<void>;
}

/** What serve() listens with: an express application (`app.listen` makes the HTTP server). */
export interface Listener {
  listen(port: number, host: string): Server;
}

export interface ServeOptions {
  name: string;
  app: Listener;
  port: number;
  host?: string;
  health: Health;
  logger: Logger;
  /** Called after the listener has drained, in order: consumers, then clients. */
  closers?: Array<() => Promise<void>>;
  /** METRICS_PORT: `/metrics` on a listener of its own (the kernel's `metricsApp()`), closed last. */
  metrics?: { port: number; app: Listener } | undefined;
}

/** Listens on `port`; the server once it is listening, and its base URL. */
async function listen(app: Listener, port: number, host: string): Promise<{ server: Server; url: string; port: number }> {
  const server = app.listen(port, host);
  await once(server, 'listening');
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  return { server, url: `http://${host}:${bound}`, port: bound };
}

/** Closes a listener whose clients (Prometheus) may keep connections open: no answer there is worth waiting for. */
async function closeNow(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
}

const OPEN_INDEX = Symbol('open response index');

/** A response being worked on, with its place among the server's open responses. */
type OpenResponse = ServerResponse & { [OPEN_INDEX]: number };

/** Listens and returns a handle whose stop() drains HTTP and then closes the dependencies. */
export async function serve(options: ServeOptions): Promise<RunningService> {
  const host = options.host ?? '127.0.0.1';
  // The metrics listener first: a port taken there fails the start before the service port opens.
  const metrics = options.metrics ? await listen(options.metrics.app, options.metrics.port, host) : undefined;
  const { server, url, port } = await listen(options.app, options.port, host).catch(async (error: unknown) => {
    if (metrics) await closeNow(metrics.server);
    throw error;
  });
  server.keepAliveTimeout = 5000;
  let stopping: Promise<void> | undefined;

  // Responses still being worked on. Once stopping, each says `Connection: close`, so that a
  // keep-alive client does not hold its connection (and the drain) open until keepAliveTimeout.
  // An array with each response's index, not a Set: V8 keeps a Set's outgrown hash tables with
  // the entries they held (for iterators), and an outgrown table in the old generation held
  // those responses, and all they reference, through every young-generation collection.
  const open: OpenResponse[] = [];
  function forget(this: OpenResponse): void {
    const index = this[OPEN_INDEX];
    if (open[index] !== this) return;
    const last = open.pop() as OpenResponse;
    if (last !== this) {
      open[index] = last;
      last[OPEN_INDEX] = index;
    }
  }
  server.prependListener('request', (_req: IncomingMessage, res: OpenResponse) => {
    if (stopping !== undefined) res.setHeader('Connection', 'close');
    res[OPEN_INDEX] = open.length;
    open.push(res);
    // 'close' comes after the response finished, or when it was cut off.
    res.on('close', forget);
  });

  const drain = async (): Promise<void> => {
    for (const res of open) if (!res.headersSent) res.setHeader('Connection', 'close');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Connections that turn idle later (a response streamed before stop) are closed as they do.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    server.closeIdleConnections();
    try {
      await closed;
    } finally {
      clearInterval(sweep);
    }
  };

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      options.health.markDraining();
      await drain();
      for (const close of options.closers ?? []) {
        try {
          await close();
        } catch (error) {
          options.logger.warn('error while closing', { error });
        }
      }
      if (metrics) await closeNow(metrics.server);
      options.logger.info('stopped', { name: options.name });
    })();
    return stopping;
  };

  options.logger.info('listening', { name: options.name, url, ...(metrics ? { metricsUrl: metrics.url } : {}) });
  return { name: options.name, url, port, stop, ...(metrics ? { metricsUrl: metrics.url } : {}) };
}

/**
 * SIGTERM/SIGINT: stop every service (not-ready, drain, close) and exit 0; a hard timeout
 * exits 1 so that a stuck dependency cannot hold the process forever.
 */
export function exitOnSignals(services: () => RunningService[], logger: Logger, timeoutMs = 10_000): void {
  let handled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (handled) return;
    handled = true;
    logger.info('shutting down', { signal });
    const timer = setTimeout(() => {
      logger.error('shutdown timed out', { timeoutMs });
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    Promise.all(services().map((service) => service.stop()))
      .then(() => flushTraces().catch(() => undefined))
      .then(
        () => {
          clearTimeout(timer);
          process.exit(0);
        },
        (error: unknown) => {
          clearTimeout(timer);
          logger.error('shutdown failed', { error });
          process.exit(1);
        },
      );
  };
  // `on`, not `once`: a second signal (pnpm forwards the one the process group already got)
  // must not fall back to the default action and kill the drain half-way.
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** Runs a main function; a start-up failure prints one clear line and exits 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    const message = errorMessage(error);
    process.stderr.write(`${message}\n`);
    process.exit(1);
  });
}
