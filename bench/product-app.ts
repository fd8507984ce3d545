/**
 * A product app of the lookup family in its own process, for the usage bench's gateway
 * scenarios: `GET /whois?domainName=&apiKey=` through `@platform/product-gateway` with its debits
 * coalesced (MODE=coalesced, the default gateway), one request per debit (MODE=single), or the
 * same app without the gateway (MODE=unmetered: no credential check, no debit).
 */
import { createHttpApp } from '@platform/kernel';
import { createProductGateway } from '@platform/product-gateway';
import { createLogger, Health } from '@platform/runtime';

const mode = process.env.MODE ?? 'coalesced';
const http = createHttpApp({
  service: 'product-bench',
  logger: createLogger({ service: 'product-bench', level: 'warn' }),
  health: new Health({}),
  openapi: {},
  envelope: 'errorMessage',
});
const gateway =
  mode === 'unmetered'
    ? undefined
    : createProductGateway({
        userUrl: process.env.USER_URL ?? 'http://127.0.0.1:8082',
        serviceJwtSecret: process.env.SERVICE_JWT_SECRET ?? '',
        productId: 1,
        ...(mode === 'single' ? { coalesce: false as const } : {}),
      });
if (gateway)
  http.app.use(gateway.routes('/whois', (call) => ({ WhoisRecord: { domainName: call.domainName, creditsLeft: call.credits } })));
else
  http.app.get(
    '/whois',
    (req, res) =>
      void res.json({ WhoisRecord: { domainName: typeof req.query.domainName === 'string' ? req.query.domainName : '', creditsLeft: 0 } }),
  );
const server = http.finish().listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close(() => void (gateway ? gateway.close() : Promise.resolve()).then(() => process.exit(0)));
});
