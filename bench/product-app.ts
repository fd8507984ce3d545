/**
 * A product app of the lookup family in its own process, for the usage bench's gateway
 * scenarios: `GET /whois?domainName=&apiKey=` through `@platform/product-gateway` with its debits
 * coalesced (MODE=coalesced, the default gateway) or one request per debit (MODE=single); the
 * same route without the debit (MODE=unmetered-app: the gateway's checks of the credential's
 * shape and `domainName`, and its render, as a product that meters nothing would keep them); or
 * a bare express route (MODE=unmetered: no check, no kernel render).
 */
import { createHttpApp, handler, productEdge, respond } from '@platform/kernel';
import { createProductGateway, readLookupRequest } from '@platform/product-gateway';
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
  mode === 'coalesced' || mode === 'single'
    ? createProductGateway({
        userUrl: process.env.USER_URL ?? 'http://127.0.0.1:8082',
        serviceJwtSecret: process.env.SERVICE_JWT_SECRET ?? '',
        productId: 1,
        ...(mode === 'single' ? { coalesce: false as const } : {}),
      })
    : undefined;
if (gateway)
  http.app.use(gateway.routes('/whois', (call) => ({ WhoisRecord: { domainName: call.domainName, creditsLeft: call.credits } })));
else if (mode === 'unmetered-app')
  http.app.get(
    '/whois',
    handler(productEdge, (req, res, params) => {
      const lookup = readLookupRequest(req, res, params);
      respond(res, 200, { WhoisRecord: { domainName: lookup.domainName, creditsLeft: 0 } });
    }),
  );
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
