import http from 'node:http';
import { PassThrough } from 'node:stream';
import { createLogger, exitOnSignals, Health, type Logger, type RunningService, runMain, serve } from '@platform/runtime';
import { createHttpApp } from '../src/http';
import { respond } from '../src/respond';
import { publicEdge } from '../src/route-edge';
import { handler } from '../src/route-handler';

function quietLogger(): { logger: Logger; text(): string } {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  return { logger: createLogger({ service: 'lifecycle-test', level: 'debug', stream }), text: () => chunks.join('') };
}

interface Gate {
  opened: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** A service whose /slow answers only when the test releases it, and tells when it started. */
async function startService(
  closers: Array<() => Promise<void>> = [],
  events: string[] = [],
): Promise<{ service: RunningService; health: Health; started: Gate; release: Gate; logs(): string }> {
  const { logger, text } = quietLogger();
  const health = new Health({});
  const started = gate();
  const release = gate();
  const kernel = createHttpApp({ service: 'lifecycle-test', logger, health, openapi: {} });
  kernel.app.get(
    '/slow',
    handler(publicEdge, async (_req, res) => {
      started.open();
      await release.opened;
      res.on('finish', () => events.push('response sent'));
      respond(res, 200, { done: true });
    }),
  );
  kernel.app.get(
    '/fast',
    handler(publicEdge, (_req, res) => {
      respond(res, 200, { fast: true });
    }),
  );
  const service = await serve({ name: 'lifecycle-test', app: kernel.finish(), port: 0, health, logger, closers });
  return { service, health, started, release, logs: text };
}

/** GET over a keep-alive agent, so that the connection outlives the response as real clients' do. */
function get(url: string, agent: http.Agent): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
      })
      .on('error', reject);
  });
}

describe('serve', () => {
  it('when started on port 0, then it listens on a real port and answers', async () => {
    const { service } = await startService();
    try {
      expect(service.port).toBeGreaterThan(0);
      expect(service.url).toBe(`http://127.0.0.1:${service.port}`);
      expect(service.name).toBe('lifecycle-test');
      const agent = new http.Agent({ keepAlive: false });
      await expect(get(`${service.url}/health/live`, agent)).resolves.toMatchObject({ status: 200, body: '{"status":"ok"}' });
    } finally {
      await service.stop();
    }
  });

  it('when the port is taken, then serve rejects instead of hanging', async () => {
    const { service } = await startService();
    const { logger } = quietLogger();
    try {
      const other = createHttpApp({ service: 'other', logger, health: new Health({}), openapi: {} }).finish();
      await expect(serve({ name: 'other', app: other, port: service.port, health: new Health({}), logger })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await service.stop();
    }
  });
});

describe('stop', () => {
  it('when a request is in flight, then stop lets it finish before closing, then runs the closers', async () => {
    const events: string[] = [];
    const { service, started, release } = await startService(
      [
        () => {
          events.push('consumer closed');
          return Promise.resolve();
        },
        () => {
          events.push('client closed');
          return Promise.resolve();
        },
      ],
      events,
    );
    const agent = new http.Agent({ keepAlive: true });
    try {
      const inFlight = get(`${service.url}/slow`, agent);
      await started.opened;
      const stopped = service.stop().then(() => events.push('stopped'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(events).toEqual([]);
      release.open();
      const response = await inFlight;
      await stopped;
      expect(response).toMatchObject({ status: 200, body: '{"done":true}' });
      expect(events).toEqual(['response sent', 'consumer closed', 'client closed', 'stopped']);
    } finally {
      agent.destroy();
    }
  });

  it('when a keep-alive client holds its connection, then the drain does not wait for the keep-alive timeout', async () => {
    const { service, started, release } = await startService();
    const agent = new http.Agent({ keepAlive: true });
    try {
      const inFlight = get(`${service.url}/slow`, agent);
      await started.opened;
      const stopped = service.stop();
      release.open();
      const response = await inFlight;
      expect(response.connection).toBe('close');
      // keepAliveTimeout is 5 s: finishing well before it shows the connection was closed, not timed out.
      const outcome = await Promise.race([
        stopped.then(() => 'stopped'),
        new Promise((resolve) => setTimeout(() => resolve('still open'), 2000)),
      ]);
      expect(outcome).toBe('stopped');
    } finally {
      agent.destroy();
    }
  });

  it('when requests end out of order (one cut off by its client) before stop, then each one still open answers Connection: close', async () => {
    const { logger } = quietLogger();
    const health = new Health({});
    const kernel = createHttpApp({ service: 'lifecycle-test', logger, health, openapi: {} });
    const ids = ['a', 'b', 'c', 'd'] as const;
    type Id = (typeof ids)[number];
    const gates = (): Record<Id, Gate> => ({ a: gate(), b: gate(), c: gate(), d: gate() });
    const arrived = gates();
    const released = gates();
    const closed = gate();
    kernel.app.get(
      '/hold/:id',
      handler(publicEdge, async (req, res) => {
        const id = req.params.id as Id;
        if (id === 'c') res.on('close', closed.open);
        arrived[id].open();
        await released[id].opened;
        respond(res, 200, { id });
      }),
    );
    const service = await serve({ name: 'lifecycle-test', app: kernel.finish(), port: 0, health, logger });
    const agent = new http.Agent({ keepAlive: true });
    try {
      const a = get(`${service.url}/hold/a`, agent);
      const b = get(`${service.url}/hold/b`, agent);
      const cutOff = http.get(`${service.url}/hold/c`, { agent: new http.Agent({ keepAlive: false }) });
      cutOff.on('error', () => undefined);
      const d = get(`${service.url}/hold/d`, agent);
      await Promise.all(ids.map((id) => arrived[id].opened));
      released.b.open();
      expect(await b).toMatchObject({ status: 200, connection: 'keep-alive', body: '{"id":"b"}' });
      cutOff.destroy();
      await closed.opened;
      const stopped = service.stop();
      released.a.open();
      released.d.open();
      expect(await a).toMatchObject({ status: 200, connection: 'close', body: '{"id":"a"}' });
      expect(await d).toMatchObject({ status: 200, connection: 'close', body: '{"id":"d"}' });
      await stopped;
    } finally {
      agent.destroy();
    }
  });

  it('when stopping, then readiness turns to draining at once', async () => {
    const { service, health } = await startService();
    const stopped = service.stop();
    expect(health.isDraining).toBe(true);
    await stopped;
  });

  it('when stopped, then new connections are refused', async () => {
    const { service } = await startService();
    await service.stop();
    const agent = new http.Agent({ keepAlive: false });
    await expect(get(`${service.url}/fast`, agent)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('when stop is called twice, then both resolve and the closers run once', async () => {
    const closer = jest.fn(() => Promise.resolve());
    const { service } = await startService([closer]);
    const first = service.stop();
    const second = service.stop();
    await expect(Promise.all([first, second])).resolves.toEqual([undefined, undefined]);
    await expect(service.stop()).resolves.toBeUndefined();
    expect(closer).toHaveBeenCalledTimes(1);
  });

  it('when a closer fails, then the next closers still run and stop still resolves, with the failure logged', async () => {
    const later = jest.fn(() => Promise.resolve());
    const { service, logs } = await startService([() => Promise.reject(new Error('redis quit failed')), later]);
    await expect(service.stop()).resolves.toBeUndefined();
    expect(later).toHaveBeenCalledTimes(1);
    expect(logs()).toContain('error while closing');
    expect(logs()).toContain('redis quit failed');
  });
});

describe('exitOnSignals', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  type SignalListener = (signal: NodeJS.Signals) => void;

  /** Installs the handlers, takes them off the real process again, and returns them to call by hand. */
  function installedHandlers(install: () => void): Record<'SIGTERM' | 'SIGINT', SignalListener> {
    const signals = ['SIGTERM', 'SIGINT'] as const;
    const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
    install();
    const handlers: Partial<Record<'SIGTERM' | 'SIGINT', SignalListener>> = {};
    for (const signal of signals) {
      const added = process.listeners(signal).filter((listener) => !before.get(signal)?.has(listener));
      expect(added).toHaveLength(1);
      const listener = added[0] as SignalListener;
      process.removeListener(signal, listener);
      handlers[signal] = listener;
    }
    return handlers as Record<'SIGTERM' | 'SIGINT', SignalListener>;
  }

  it('when SIGTERM arrives, then every service is stopped once and the process exits 0', async () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation(() => undefined as never);
    const stop = jest.fn(() => Promise.resolve());
    const services: RunningService[] = [
      { name: 'a', url: 'http://a', port: 1, stop },
      { name: 'b', url: 'http://b', port: 2, stop },
    ];
    const { logger } = quietLogger();
    const handlers = installedHandlers(() => exitOnSignals(() => services, logger));
    handlers.SIGTERM('SIGTERM');
    handlers.SIGINT('SIGINT');
    await new Promise((resolve) => setImmediate(resolve));
    expect(stop).toHaveBeenCalledTimes(2);
    expect(exit).toHaveBeenCalledTimes(1);
    expect(exit).toHaveBeenCalledWith(0);
  });

  it('when a service fails to stop, then the process exits 1 and says why', async () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation(() => undefined as never);
    const service: RunningService = { name: 's', url: 'http://x', port: 1, stop: () => Promise.reject(new Error('stuck')) };
    const { logger, text } = quietLogger();
    const handlers = installedHandlers(() => exitOnSignals(() => [service], logger));
    handlers.SIGINT('SIGINT');
    await new Promise((resolve) => setImmediate(resolve));
    expect(exit).toHaveBeenCalledWith(1);
    expect(text()).toContain('shutdown failed');
  });

  it('when stopping hangs past the timeout, then the process exits 1', async () => {
    jest.useFakeTimers();
    try {
      const exit = jest.spyOn(process, 'exit').mockImplementation(() => undefined as never);
      const service: RunningService = { name: 's', url: 'http://x', port: 1, stop: () => new Promise<void>(() => undefined) };
      const { logger } = quietLogger();
      const handlers = installedHandlers(() => exitOnSignals(() => [service], logger, 1000));
      handlers.SIGTERM('SIGTERM');
      await jest.advanceTimersByTimeAsync(999);
      expect(exit).not.toHaveBeenCalled();
      await jest.advanceTimersByTimeAsync(1);
      expect(exit).toHaveBeenCalledWith(1);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('runMain', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('when main fails at start-up, then one line goes to stderr and the process exits 1', async () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation(() => undefined as never);
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    runMain(() => Promise.reject(new Error('invalid configuration: REDIS_URL: Required')));
    await new Promise((resolve) => setImmediate(resolve));
    expect(write).toHaveBeenCalledWith('invalid configuration: REDIS_URL: Required\n');
    expect(exit).toHaveBeenCalledWith(1);
  });

  it('when main succeeds, then nothing exits', async () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation(() => undefined as never);
    runMain(() => Promise.resolve());
    await new Promise((resolve) => setImmediate(resolve));
    expect(exit).not.toHaveBeenCalled();
  });
});
