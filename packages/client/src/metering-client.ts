import { readJson, send, type FetchFunction } from './http.js';
import { serviceJwtSigner, type ServiceJwtSource } from './service-jwt.js';
import type { Reservation, ReservationEnd } from './types.js';

/** Options of {@link MeteringClient}. */
export interface MeteringClientOptions {
  /** Base URL of the user service's internal usage API (USER_URL, or its internal port). */
  userUrl: string;
  /** `{ secret, issuer }`: SERVICE_JWT_SECRET and the calling service's name; or a function that answers a valid service JWT. */
  serviceJwt: ServiceJwtSource;
  /** The fetch to call (default: the platform's `fetch`). */
  fetch?: FetchFunction;
  /** Clock in epoch milliseconds (default `Date.now`): the `iat` and `exp` of the JWTs it signs. */
  now?: () => number;
}

/** What a reservation asks for (CONTRACT §7.1). */
export interface ReserveRequest {
  /** The customer's API key or access token, as presented to the product. */
  credential: string;
  productId: number;
  units: number;
  /** Idempotency key: a retry with the same id reserves nothing again and answers the first reservation. */
  requestId: string;
  /** 1–3600 (default 300): after it the service returns the units itself. */
  ttlSeconds?: number;
}

/**
 * Client of the internal usage API's reservations, for product services (not for customers): a
 * product whose price is known only after the work reserves the most it may cost, does the work,
 * then settles what it used (the rest returns to the pool) or releases all of it. Authenticated
 * by a service JWT. 429 and 503 are retried as Retry-After asks; every failure is an ApiError
 * (403: the pool holds fewer credits; 409: a requestId reused, or a reservation ended otherwise).
 */
export class MeteringClient {
  private readonly url: string;
  private readonly jwt: () => Promise<string>;
  private readonly fetchFn: FetchFunction;

  constructor(options: MeteringClientOptions) {
    this.url = `${options.userUrl.replace(/\/+$/, '')}/internal/v1/usage/reservations`;
    this.jwt = serviceJwtSigner(options.serviceJwt, options.now ?? Date.now);
    // Called through a closure: browsers refuse a fetch detached from `globalThis`.
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** Takes `units` from the pool at once; answers the reservation (its id, expiry and the pool's credits after). */
  async reserve(request: ReserveRequest): Promise<Reservation> {
    return (await this.post('', request)) as Reservation;
  }

  /** Charges `units` (0 to the units reserved) and returns the rest; a repeat answers the same. */
  async settle(reservationId: string, units: number): Promise<ReservationEnd> {
    return (await this.post(`/${encodeURIComponent(reservationId)}/settle`, { units })) as ReservationEnd;
  }

  /** Returns every reserved unit; a repeat answers the same. */
  async release(reservationId: string): Promise<ReservationEnd> {
    return (await this.post(`/${encodeURIComponent(reservationId)}/release`, {})) as ReservationEnd;
  }

  private async post(path: string, body: unknown): Promise<unknown> {
    const response = await send(this.fetchFn, {
      method: 'POST',
      url: `${this.url}${path}`,
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
      // A JWT per attempt: each carries its own jti, which the usage API accepts once.
      attemptHeaders: async () => ({ Authorization: `Bearer ${await this.jwt()}` }),
      body: JSON.stringify(body),
    });
    return readJson(response);
  }
}
