/**
 * Imported first by every entry point (`import '@platform/tracing/register'`). With tracing off
 * (no OTEL_EXPORTER_OTLP_ENDPOINT) it loads nothing else: no SDK, no instrumentation, nothing on
 * the hot paths. With tracing on it starts the SDK before express, pg, ioredis, amqplib and
 * undici are loaded, so that their instrumentations apply (exitOnSignals flushes the spans
 * still buffered before the process exits).
 */
import { serviceNameOf, tracingEnabled } from './enabled';
import { parseTraceTrust } from './incoming-trust';
import type * as Sdk from './sdk';

if (tracingEnabled(process.env)) {
  // A synchronous load on purpose: the instrumented modules must not load before it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTracing } = require('./sdk') as typeof Sdk;
  startTracing({ serviceName: serviceNameOf(process.env, process.argv), trustIncoming: parseTraceTrust(process.env.TRACE_TRUST_INCOMING) });
}
