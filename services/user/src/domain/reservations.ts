import { hash } from 'node:crypto';
import { AppError, invalidMessage, invalidParams } from '@platform/wire';
import type { Product } from './catalogue';
import { decideEnd, type EndDecision, type EndRequest, type HeldReservation, type ReservationEnd } from './reservation-rules';
import { REQUEST_ID_REUSED, type UsagePayer } from './usage';

export const DEFAULT_TTL_SECONDS = 300;
export const MAX_TTL_SECONDS = 3600;
export const RESERVATION_REUSED = 'The reservation was already ended otherwise.';

/** A reservation request after validation (CONTRACT §7.1). */
export interface ReservationRequest {
  product: Product;
  units: number;
  requestId: string;
  ttlSeconds: number;
}

/** The 201 answer: the units are taken from the pool; `credits` is what the pool holds after the hold. */
export interface Reservation {
  reservationId: string;
  accountId: number;
  productId: number;
  units: number;
  expiresAt: string;
  credits: number;
}

/** A reservation as the store creates it. */
export interface NewReservation {
  requestId: string;
  /** Digest of credential, product, units and ttl: a replay must match it (else 409). */
  digest: string;
  accountId: number;
  poolId: number;
  productId: number;
  units: number;
  ttlSeconds: number;
}

export type ReserveOutcome =
  { kind: 'reserved'; reservation: Reservation } | { kind: 'replayed'; reservation: Reservation; digest: string } | { kind: 'exhausted' };

/** What the store did with a request to end a reservation, as `decideEnd` decided it. */
export type EndOutcome = { kind: 'not_found' } | { kind: 'decided'; decision: EndDecision; end: ReservationEnd | undefined };

export interface ReservationStore {
  /**
   * In one transaction: a requestId already used answers its reservation (`replayed`); else the
   * pool's row is locked and the units are taken (the hold's ledger row, its event, the access
   * records' closing write when the pool reaches 0, before the commit), or `exhausted` and
   * nothing is written.
   */
  reserve(request: NewReservation): Promise<ReserveOutcome>;
  /**
   * In one transaction: locks the reservation's row, asks `decide`, and writes what it decided
   * (the return's ledger rows and event; a pool leaving 0 opens access after the commit only).
   * `end` is the reservation's end answer once written or when it had one.
   */
  end(reservationId: string, decide: (reservation: HeldReservation) => EndDecision): Promise<EndOutcome>;
  /** Up to `limit` held reservations whose `expiresAt` has passed, oldest first. */
  due(limit: number): Promise<string[]>;
}

function digestOf(payer: UsagePayer, request: ReservationRequest): string {
  return hash('sha256', JSON.stringify(['reservation', payer.secretHash, request.product.id, request.units, request.ttlSeconds]), 'hex');
}

export interface Reservations {
  /** Takes the units at once (CONTRACT §7.1); 403 when the pool holds fewer, 409 for a requestId reused with another body. */
  reserve(payer: UsagePayer, request: ReservationRequest): Promise<{ reservation: Reservation; replayed: boolean }>;
  /** Charges `units` (0 ≤ units ≤ reserved) and returns the rest; 404, 409, 422 as decideEnd rules. */
  settle(reservationId: string, units: number): Promise<ReservationEnd>;
  /** Returns every unit; 404, 409 as decideEnd rules. */
  release(reservationId: string): Promise<ReservationEnd>;
  /** The sweeper's return of a reservation past its `expiresAt`; true when this call ended it. */
  expire(reservationId: string): Promise<boolean>;
}

export function createReservations(store: ReservationStore): Reservations {
  const end = async (reservationId: string, request: EndRequest): Promise<ReservationEnd> => {
    const outcome = await store.end(reservationId, (reservation) => decideEnd(reservation, request));
    if (outcome.kind === 'not_found') throw new AppError('not_found');
    const { decision } = outcome;
    if (decision.kind === 'too_many') throw invalidParams({ units: [invalidMessage('units')] });
    if (decision.answer !== 'end' || !outcome.end) throw new AppError('conflict', { message: RESERVATION_REUSED });
    return outcome.end;
  };
  return {
    async reserve(payer, request) {
      const digest = digestOf(payer, request);
      const outcome = await store.reserve({
        requestId: request.requestId,
        digest,
        accountId: payer.accountId,
        poolId: request.product.poolId,
        productId: request.product.id,
        units: request.units,
        ttlSeconds: request.ttlSeconds,
      });
      switch (outcome.kind) {
        case 'exhausted':
          throw new AppError('credits_exhausted');
        case 'replayed':
          if (outcome.digest !== digest) throw new AppError('conflict', { message: REQUEST_ID_REUSED });
          return { reservation: outcome.reservation, replayed: true };
        case 'reserved':
          return { reservation: outcome.reservation, replayed: false };
      }
    },
    settle: (reservationId, units) => end(reservationId, { kind: 'settle', units }),
    release: (reservationId) => end(reservationId, { kind: 'release' }),
    async expire(reservationId) {
      const outcome = await store.end(reservationId, (reservation) => decideEnd(reservation, { kind: 'expire' }));
      return outcome.kind === 'decided' && outcome.decision.kind === 'answer' && outcome.decision.write?.state === 'expired';
    },
  };
}
