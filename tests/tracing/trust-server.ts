/**
 * A child process of tests/tracing-trust.int.test.ts: the SDK with a span processor that reports to the parent and
 * the trust read from TRACE_TRUST_INCOMING, as @platform/tracing/register starts it, then a
 * kernel app (loaded after the SDK, so that the http instrumentation patches it). It sends its
 * URL, then each server span as it ends.
 */
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { parseTraceTrust, startTracing } from '@platform/tracing';
import type * as Kernel from '@platform/kernel';
import type * as Runtime from '@platform/runtime';
import type * as Testing from '@platform/testing';

/** Sends every server span to the parent as it ends. */
const reporter: SpanProcessor = {
  onStart: () => undefined,
  onEnd: (span: ReadableSpan) => {
    if (span.kind !== SpanKind.SERVER) return;
    process.send?.({
      span: {
        target: String(span.attributes['url.path'] ?? span.attributes['http.target'] ?? ''),
        traceId: span.spanContext().traceId,
        parentSpanId: span.parentSpanContext?.spanId ?? null,
        sampled: (span.spanContext().traceFlags & 1) === 1,
      },
    });
  },
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};
startTracing({
  serviceName: 'trace-trust-test',
  spanProcessors: [reporter],
  trustIncoming: parseTraceTrust(process.env.TRACE_TRUST_INCOMING),
});

/* eslint-disable @typescript-eslint/no-require-imports -- loaded after the SDK on purpose */
const { createHttpApp } = require('@platform/kernel') as typeof Kernel;
const { Health } = require('@platform/runtime') as typeof Runtime;
const { silentLogger } = require('@platform/testing') as typeof Testing;
/* eslint-enable @typescript-eslint/no-require-imports */

const http = createHttpApp({ service: 'trace-trust', logger: silentLogger(), health: new Health({}), openapi: {} });
http.app.get('/traced/:call', (_req, res) => {
  res.status(204).end();
});
const server = http.finish().listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  process.send?.({ url: `http://127.0.0.1:${address.port}` });
});
process.on('disconnect', () => server.close(() => process.exit(0)));
