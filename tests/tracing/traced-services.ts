/**
 * A child process of tests/tracing.int.test.ts: the OpenTelemetry SDK with its in-memory
 * exporter, started before anything it instruments is loaded (as @platform/tracing/register
 * does in the services), then the user service, the notifier and a product app (see
 * ./traced-platform.ts). Spans go to the parent over IPC when it asks.
 */
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { parseTraceTrust, startTracing } from '@platform/tracing';
import type * as Platform from './traced-platform';

const exporter = new InMemorySpanExporter();
startTracing({
  serviceName: 'account-access-test',
  spanProcessors: [new SimpleSpanProcessor(exporter)],
  trustIncoming: parseTraceTrust(process.env.TRACE_TRUST_INCOMING),
});

// Loaded only now, synchronously, so that the instrumentations patch what it loads.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const platform = require('./traced-platform') as typeof Platform;
platform.run(exporter).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
