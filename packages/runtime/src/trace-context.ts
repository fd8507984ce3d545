import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { errorMessage } from './error-message';

/**
 * Trace context across the platform's asynchronous hops (outbox row, RabbitMQ headers, the
 * notifier's mail queue), through the OpenTelemetry API only. Without a registered SDK
 * (tracing off: OTEL_EXPORTER_OTLP_ENDPOINT unset) every call here is a no-op of the API:
 * nothing is stored, no span is recorded.
 */
export type TraceCarrier = Record<string, string>;

/** The active trace context as W3C headers (`traceparent`, `tracestate`); empty when there is none. */
export function injectTraceContext(carrier: TraceCarrier = {}, from: Context = context.active()): TraceCarrier {
  propagation.inject(from, carrier);
  return carrier;
}

/** The context a stored or received `traceparent` names (the root context when it names none). */
export function extractTraceContext(carrier: Readonly<Record<string, unknown>> | null | undefined): Context {
  const headers: TraceCarrier = {};
  for (const [key, value] of Object.entries(carrier ?? {})) {
    if (typeof value === 'string') headers[key] = value;
    else if (Buffer.isBuffer(value)) headers[key] = value.toString('utf8'); // AMQP header values may arrive as bytes
  }
  return propagation.extract(context.active(), headers);
}

/**
 * The parent for work that a message or a stored row started: the active context when an
 * instrumentation already made a span for it (amqplib's consumer span), else the stored one.
 */
export function continuedFrom(carrier: Readonly<Record<string, unknown>> | null | undefined): Context {
  const active = context.active();
  return trace.getSpan(active) === undefined ? extractTraceContext(carrier) : active;
}

/** The active `traceparent`, to store beside work that continues later (an outbox row), or null. */
export function currentTraceparent(): string | null {
  return injectTraceContext().traceparent ?? null;
}

/** The active span's ids for a log line, or undefined outside a recorded span. */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  const span = trace.getSpanContext(context.active());
  if (span === undefined || !trace.isSpanContextValid(span)) return undefined;
  return { trace_id: span.traceId, span_id: span.spanId };
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Record<string, string | number | boolean>;
  /** Parent context; default the active one. */
  parent?: Context;
}

/** Runs `fn` in a new active span of `tracer`, ended when `fn` settles (an error marks it failed). */
export async function inSpan<T>(tracer: string, name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = trace
    .getTracer(tracer)
    .startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Exports the spans still buffered (tracing on) before the process exits; nothing to do when
 * tracing is off. The SDK's provider sits behind the API's proxy provider.
 */
export async function flushTraces(): Promise<void> {
  const proxy = trace.getTracerProvider() as { getDelegate?: () => unknown };
  const provider = proxy.getDelegate?.() as { forceFlush?: () => Promise<void> } | undefined;
  await provider?.forceFlush?.();
}

/** Runs background work outside any trace (a worker loop woken from a request or a message). */
export function outsideTrace<T>(fn: () => T): T {
  return context.with(ROOT_CONTEXT, fn);
}

export { SpanKind, SpanStatusCode, type Span };
