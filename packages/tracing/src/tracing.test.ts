import { spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import {
  createLogger,
  currentTraceparent,
  extractTraceContext,
  inSpan,
  injectTraceContext,
  outsideTrace,
  SpanKind,
} from '@platform/runtime';
import { serviceNameOf, tracingEnabled } from './enabled';
import { startTracing } from './sdk';

describe('tracingEnabled', () => {
  it('when no OTLP endpoint is set, then tracing is off', () => {
    expect(tracingEnabled({})).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
  });

  it('when an OTLP endpoint (any or the traces one) is set, then it is on unless OTEL_SDK_DISABLED is true', () => {
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
  });
});

describe('serviceNameOf', () => {
  it('when OTEL_SERVICE_NAME or SERVICE is set, then that names the spans; else the entry point does', () => {
    expect(serviceNameOf({ OTEL_SERVICE_NAME: 'billing', SERVICE: 'user' }, ['node', 'dist/main.js'])).toBe('billing');
    expect(serviceNameOf({ SERVICE: 'user' }, ['node', 'dist/main.js'])).toBe('user');
    expect(serviceNameOf({}, ['node', '/repo/services/notifier/src/main.ts'])).toBe('notifier');
    expect(serviceNameOf({}, ['node', '/repo/scripts/start-all.ts'])).toBe('account-access-platform');
  });
});

describe('@platform/tracing/register', () => {
  /** Which OpenTelemetry modules a process that imports the register module has loaded. */
  const loadedWith = (env: NodeJS.ProcessEnv): string => {
    const script =
      "require('@platform/tracing/register'); console.log(Object.keys(require.cache).filter((f) => f.includes('@opentelemetry')).length)";
    const result = spawnSync(process.execPath, ['--conditions=development', '--import', 'tsx', '-e', script], {
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
      cwd: __dirname,
    });
    expect(result.stderr).toBe('');
    return result.stdout.trim();
  };

  it('when tracing is off, then it loads no OpenTelemetry module at all', () => {
    expect(loadedWith({})).toBe('0');
  });

  it('when an OTLP endpoint is set, then it loads the SDK and the instrumentations', () => {
    expect(Number(loadedWith({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }))).toBeGreaterThan(50);
  });
});

describe('trace context with the SDK running (in-memory exporter)', () => {
  const exporter = new InMemorySpanExporter();
  let sdk: NodeSDK;

  beforeAll(() => {
    sdk = startTracing({ serviceName: 'tracing-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
  });

  afterAll(async () => {
    await sdk.shutdown();
  });

  it('when work continues from a stored traceparent, then its span is a child of the span that stored it', async () => {
    const stored = await inSpan('test', 'write', {}, () => Promise.resolve(currentTraceparent()));
    expect(stored).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await inSpan('test', 'later', { kind: SpanKind.CONSUMER, parent: extractTraceContext({ traceparent: stored }) }, () =>
      Promise.resolve(),
    );
    const [write, later] = ['write', 'later'].map((name) => exporter.getFinishedSpans().find((span) => span.name === name));
    expect(later?.spanContext().traceId).toBe(write?.spanContext().traceId);
    expect(later?.parentSpanContext?.spanId).toBe(write?.spanContext().spanId);
  });

  it('when a span fails, then it is ended with an error status and the error goes on', async () => {
    await expect(inSpan('test', 'failing', {}, () => Promise.reject(new Error('smtp refused')))).rejects.toThrow('smtp refused');
    const failing = exporter.getFinishedSpans().find((span) => span.name === 'failing');
    expect(failing?.status).toEqual({ code: 2, message: 'smtp refused' });
  });

  it('when nothing is traced, then no traceparent is stored and headers stay empty', () => {
    expect(outsideTrace(() => currentTraceparent())).toBeNull();
    expect(outsideTrace(() => injectTraceContext({ 'x-publish-id': '1' }))).toEqual({ 'x-publish-id': '1' });
  });

  it('when a line is logged inside a span, then it carries trace_id and span_id; outside, neither', async () => {
    const stream = new PassThrough();
    const lines: Array<Record<string, unknown>> = [];
    stream.on('data', (chunk: Buffer) => lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>));
    const logger = createLogger({ service: 'test', stream });
    const ids = await inSpan('test', 'logged', {}, (span) => {
      logger.child({ requestId: 'r-1' }).info('inside');
      return Promise.resolve(span.spanContext());
    });
    logger.info('outside');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines[0]).toMatchObject({ message: 'inside', requestId: 'r-1', trace_id: ids.traceId, span_id: ids.spanId });
    expect(lines[1]).not.toHaveProperty('trace_id');
    expect(trace.getSpan(context.active())).toBeUndefined();
  });
});
