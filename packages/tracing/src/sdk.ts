import { AmqplibInstrumentation } from '@opentelemetry/instrumentation-amqplib';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { dropUntrustedTraceContext, type TraceTrust } from './incoming-trust';

/**
 * Query parameters whose values never go into a span: the credentials the API accepts in a query
 * string (CONTRACT §3: `apiKey`, `currentApiKey`, a token in their place), OAuth's, and the
 * instrumentation's own defaults (signed-URL parameters), which a list given here replaces.
 */
const SECRET_QUERY_PARAMS = [
  'apiKey',
  'currentApiKey',
  'token',
  'access_token',
  'client_secret',
  'sig',
  'Signature',
  'AWSAccessKeyId',
  'X-Goog-Signature',
  'X-Amz-Signature',
  'X-Amz-Credential',
  'X-Amz-Security-Token',
];

/** Probes and scrapes are not worth a trace each. */
const UNTRACED_PATHS = /^\/(health\/|metrics(\?|$))/;

export interface TracingOptions {
  serviceName: string;
  /** Where spans go; default: from the OTEL_* variables (OTLP, batched). Tests pass an in-memory exporter's processor. */
  spanProcessors?: SpanProcessor[];
  /** Whose incoming `traceparent` is continued (TRACE_TRUST_INCOMING); default nobody's. */
  trustIncoming?: TraceTrust;
}

/**
 * Starts the OpenTelemetry Node SDK for traces only (metrics stay Prometheus, logs stay JSON on
 * stdout) with the http, express, pg, ioredis, amqplib and undici instrumentations. Must run
 * before those modules are first required: `@platform/tracing/register` does it first thing.
 * The standard OTEL_* variables (endpoint, protocol, headers, sampler, resource attributes)
 * apply as the SDK reads them.
 */
export function startTracing(options: TracingOptions): NodeSDK {
  const trust = options.trustIncoming ?? { kind: 'none' };
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => {
          if (UNTRACED_PATHS.test(request.url ?? '')) return true;
          // The one hook that sees the request before the instrumentation reads its trace
          // context: an untrusted caller's is removed here, so its span starts a new trace and
          // the sampler, not the caller's flags, decides whether it is recorded.
          dropUntrustedTraceContext(request, trust);
          return false;
        },
        redactedQueryParams: SECRET_QUERY_PARAMS,
        redactedQueryParamsServer: SECRET_QUERY_PARAMS,
      }),
      new ExpressInstrumentation(),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      new AmqplibInstrumentation(),
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
  return sdk;
}
