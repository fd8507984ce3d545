/** The traced processes' services (loaded by ./traced-services.ts once the SDK runs). */
import type { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createHttpApp } from '@platform/kernel';
import { createLogger, Health, serve } from '@platform/runtime';
import { createProductGateway } from '@platform/product-gateway';
import { startPlatform } from '@platform/testing/platform';

export const PRODUCT_PATH = '/whoisserver/WhoisService';

/** What the parent learns of a span. */
export interface SpanRecord {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  scope: string;
  attributes: Record<string, unknown>;
}

const recordOf = (span: ReadableSpan): SpanRecord => ({
  name: span.name,
  kind: span.kind,
  traceId: span.spanContext().traceId,
  spanId: span.spanContext().spanId,
  parentSpanId: span.parentSpanContext?.spanId,
  scope: span.instrumentationScope.name,
  attributes: { ...span.attributes },
});

export async function run(exporter: InMemorySpanExporter): Promise<void> {
  // The parent's variables (its database, key prefix, exchange, SMTP server) over the platform's defaults.
  const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  // JSON lines on stdout: the parent checks that they carry the trace ids.
  const logger = (service: string) => createLogger({ service, level: 'info' });
  const platform = await startPlatform({
    name: 'tracing',
    services: ['user', 'notifier'],
    databaseUrl: env.DATABASE_URL as string,
    env,
    logger,
  });
  const userUrl = platform.url('user');

  const http = createHttpApp({ service: 'whois', logger: logger('whois'), health: new Health({}), openapi: {}, envelope: 'errorMessage' });
  const gateway = createProductGateway({ userUrl, serviceJwtSecret: env.SERVICE_JWT_SECRET as string, productId: 1 });
  http.app.use(gateway.routes(PRODUCT_PATH, (call) => ({ WhoisRecord: { domainName: call.domainName } })));
  const product = await serve({ name: 'whois', app: http.finish(), port: 0, health: new Health({}), logger: logger('whois') });

  process.on('message', (message) => {
    if (message === 'spans') process.send?.({ spans: exporter.getFinishedSpans().map(recordOf) });
    if (message === 'stop') {
      void (async () => {
        await product.stop();
        await platform.stop();
        await gateway.close();
        process.exit(0);
      })();
    }
  });
  process.send?.({ ready: { user: userUrl, product: product.url } });
}
