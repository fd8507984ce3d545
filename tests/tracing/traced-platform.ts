/** The traced processes' services (loaded by ./traced-services.ts once the SDK runs). */
import type { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createHttpApp } from '@platform/kernel';
import { createLogger, Health, serve, type RunningService } from '@platform/runtime';
import { createProductGateway } from '@platform/product-gateway';
import { loadConfig as loadNotifierConfig, runNotifierService } from '@platform/notifier';
import { loadConfig as loadUserConfig, runUserService } from '@platform/user';

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
  const env = process.env;
  // JSON lines on stdout: the parent checks that they carry the trace ids.
  const logger = (service: string) => createLogger({ service, level: 'info' });
  const services: RunningService[] = [];
  const user = await runUserService({ config: loadUserConfig(env), logger: logger('user') });
  services.push(user);
  const notifier = await runNotifierService({ config: loadNotifierConfig({ ...env, USER_URL: user.url }), logger: logger('notifier') });
  services.push(notifier);
  await notifier.consuming;

  const http = createHttpApp({ service: 'whois', logger: logger('whois'), health: new Health({}), openapi: {}, envelope: 'errorMessage' });
  const gateway = createProductGateway({ userUrl: user.url, serviceJwtSecret: env.SERVICE_JWT_SECRET as string, productId: 1 });
  http.app.use(gateway.routes(PRODUCT_PATH, (call) => ({ WhoisRecord: { domainName: call.domainName } })));
  const product = await serve({ name: 'whois', app: http.finish(), port: 0, health: new Health({}), logger: logger('whois') });
  services.push(product);

  process.on('message', (message) => {
    if (message === 'spans') process.send?.({ spans: exporter.getFinishedSpans().map(recordOf) });
    if (message === 'stop') {
      void (async () => {
        for (const service of services.reverse()) await service.stop();
        await gateway.close();
        process.exit(0);
      })();
    }
  });
  process.send?.({ ready: { user: user.url, product: product.url } });
}
