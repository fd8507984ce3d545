import { adminEdge, declareRoute, mountRoute, respond, routeGroup } from '@platform/kernel';
import { z } from 'zod';
import type { Product } from '../domain/catalogue';
import { DEFAULT_TTL_SECONDS, MAX_TTL_SECONDS, type Reservations } from '../domain/reservations';
import { MAX_UNITS, usageProduct } from '../domain/usage';
import { optionalInteger, requiredInteger } from './schemas';
import type { ProductCallUses } from './service-jwt-check';
import { UsageBody } from './usage-body';

const ReservationBody = UsageBody.extend({
  ttlSeconds: optionalInteger(1, MAX_TTL_SECONDS).openapi({
    default: DEFAULT_TTL_SECONDS,
    description: 'Seconds until the service releases it.',
  }),
});

const SettleBody = z
  .object({ units: requiredInteger(0, MAX_UNITS).openapi({ description: 'Units to charge, 0 to the units reserved.' }) })
  .openapi({ example: { units: 3 } });

const Reservation = z
  .object({
    reservationId: z.string().uuid(),
    accountId: z.number().int(),
    productId: z.number().int(),
    units: z.number().int(),
    expiresAt: z.string().datetime(),
    credits: z.number().int().min(0),
  })
  .openapi('Reservation');

const ReservationEnd = z
  .object({ reservationId: z.string().uuid(), charged: z.number().int(), released: z.number().int(), credits: z.number().int().min(0) })
  .openapi('ReservationEnd');

const reservationPath = { id: z.string().uuid().openapi({ description: 'The reservationId of the 201.' }) };

const JWT_401 = 'Missing or bad service JWT ("Invalid service token.")';

export const reserveRoute = declareRoute({
  methods: ['post'],
  paths: ['/internal/v1/usage/reservations'],
  edge: adminEdge,
  summary: 'Reserve units of a pool for a call whose price is known after the work (internal)',
  description:
    'Service JWT as for `POST /internal/v1/usage`. The units are taken from the pool at once (balance, alerts and the token ' +
    'gate see them as spent) until settled, released, or released by the service within 60 s after `expiresAt`. ' +
    "Idempotent by `requestId` (reservations keep their own requestIds, apart from the debits'): a replay answers the " +
    'first 201; another body is 409. JSON only.',
  security: [{ serviceJwt: [] }],
  document: ReservationBody,
  responses: {
    201: { description: 'Reserved; `credits` is what the pool holds after the hold', body: Reservation },
    401: `${JWT_401}, or bad customer credential`,
    403: 'The pool holds fewer credits than units, or the product is not held',
    409: 'requestId already used with a different body',
    422: 'Bad productId, units, requestId or ttlSeconds',
    503: 'Database or token store unavailable; nothing was reserved (retry with the same requestId)',
  },
});

const endDescription = (what: string): string =>
  `Service JWT as for \`POST /internal/v1/usage\`. ${what} Idempotent: a repeat answers the first answer; a settle after ` +
  'a release or expiry, a release after a settle, or a second settle of other units is 409. JSON only.';

export const settleRoute = declareRoute({
  methods: ['post'],
  paths: ['/internal/v1/usage/reservations/{id}/settle'],
  edge: adminEdge,
  summary: 'Charge part of a reservation and return the rest (internal)',
  description: endDescription('Charges `units` (0 to the units reserved) and returns the rest to the pool.'),
  security: [{ serviceJwt: [] }],
  pathParams: reservationPath,
  document: SettleBody,
  responses: {
    200: { description: 'Settled; `credits` is what the pool holds after the return', body: ReservationEnd },
    401: JWT_401,
    404: 'No such reservation',
    409: 'Released or expired already, or settled with other units',
    422: 'units missing, not an integer, or more than reserved',
    503: 'Database or token store unavailable (retry)',
  },
});

export const releaseRoute = declareRoute({
  methods: ['post'],
  paths: ['/internal/v1/usage/reservations/{id}/release'],
  edge: adminEdge,
  summary: 'Return a whole reservation to its pool (internal)',
  description: endDescription('Returns every reserved unit to the pool (after expiry: the return the service made).'),
  security: [{ serviceJwt: [] }],
  pathParams: reservationPath,
  responses: {
    200: { description: 'Released; `credits` is what the pool holds after the return', body: ReservationEnd },
    401: JWT_401,
    404: 'No such reservation',
    409: 'Settled already',
    503: 'Database or token store unavailable (retry)',
  },
});

/** The reservation routes (CONTRACT §7.1): JWT first (401), then the customer's credential (401), then the body (422). */
export const reservationRoutes = routeGroup<ProductCallUses & { reservations: Reservations }>({
  internal: true,
  routes: [reserveRoute, settleRoute, releaseRoute],
  mount(router, { requireServiceJwt, credentials, catalogue, reservations }) {
    mountRoute(router, reserveRoute, async (req, res, declared) => {
      await requireServiceJwt(req);
      const { credential } = declared.params.rawBody();
      const payer = await credentials.require(typeof credential === 'string' ? credential : undefined);
      const { input, ruled } = await declared.inputWith((accepted) => usageProduct(catalogue.product, accepted.productId));
      const { requestId, units, ttlSeconds } = input.document;
      const { reservation } = await reservations.reserve(payer, {
        // The schema accepted the product id, so the catalogue named its product.
        product: ruled as Product,
        units: units ?? 1,
        requestId,
        ttlSeconds: ttlSeconds ?? DEFAULT_TTL_SECONDS,
      });
      respond(res, 201, reservation);
    });
    mountRoute(router, settleRoute, async (req, res, declared) => {
      await requireServiceJwt(req);
      // The body before the id, as the admin API's writes do: a bad body is 422 whatever it names.
      const { units } = declared.input().document;
      const { id } = declared.path();
      respond(res, 200, await reservations.settle(id, units));
    });
    mountRoute(router, releaseRoute, async (req, res, declared) => {
      await requireServiceJwt(req);
      const { id } = declared.path();
      respond(res, 200, await reservations.release(id));
    });
  },
});
