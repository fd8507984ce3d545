/** A reservation as its row holds it, read inside the transaction that may end it. */
export interface HeldReservation {
  reservationId: string;
  accountId: number;
  poolId: number;
  productId: number;
  units: number;
  state: 'held' | 'settled' | 'released' | 'expired';
  /** Settled: what was charged; released or expired: 0; held: null. */
  charged: number | null;
  /** The pool's credits as the end left them; null while held. */
  creditsAfterEnd: number | null;
  /** `expiresAt` has passed. */
  expired: boolean;
}

/** How a reservation is asked to end: charged in part (settle), returned (release), or returned by the service after `expiresAt`. */
export type EndRequest = { kind: 'settle'; units: number } | { kind: 'release' } | { kind: 'expire' };

/** What ending a reservation answers: what was charged and returned, and the pool's credits after. */
export interface ReservationEnd {
  reservationId: string;
  charged: number;
  released: number;
  credits: number;
}

/**
 * What to do with a reservation asked to end: write its end (`write`: the state it takes and what
 * it charges), then answer the end, a conflict, or nothing (`none`: the sweeper found it ended).
 */
export type EndDecision =
  | { kind: 'too_many' }
  | { kind: 'answer'; answer: 'end' | 'conflict' | 'none'; write?: { state: 'settled' | 'released' | 'expired'; charged: number } };

/**
 * CONTRACT §7.1: settle (0 ≤ n ≤ reserved) charges n and returns the rest; release returns all;
 * a reservation not ended by `expiresAt` is returned by the service (expired). A repeat answers
 * the first answer (a release after expiry is one: the units came back); any other pair
 * conflicts (a settle after release or expiry, a release after a settle, a second settle of
 * another n). A held reservation past `expiresAt` is expired at the first request that finds it,
 * before the sweeper does: a settle then conflicts.
 */
export function decideEnd(reservation: HeldReservation, request: EndRequest): EndDecision {
  if (request.kind === 'settle' && request.units > reservation.units) return { kind: 'too_many' };
  if (reservation.state === 'held') {
    if (reservation.expired) {
      const answer = request.kind === 'settle' ? 'conflict' : request.kind === 'release' ? 'end' : 'none';
      return { kind: 'answer', answer, write: { state: 'expired', charged: 0 } };
    }
    switch (request.kind) {
      case 'settle':
        return { kind: 'answer', answer: 'end', write: { state: 'settled', charged: request.units } };
      case 'release':
        return { kind: 'answer', answer: 'end', write: { state: 'released', charged: 0 } };
      case 'expire':
        return { kind: 'answer', answer: 'none' };
    }
  }
  switch (request.kind) {
    case 'expire':
      return { kind: 'answer', answer: 'none' };
    case 'settle':
      return { kind: 'answer', answer: reservation.state === 'settled' && reservation.charged === request.units ? 'end' : 'conflict' };
    case 'release':
      return { kind: 'answer', answer: reservation.state === 'released' || reservation.state === 'expired' ? 'end' : 'conflict' };
  }
}

/** The answer of an ended reservation, from its row. */
export function endOf(reservation: HeldReservation): ReservationEnd {
  const charged = reservation.charged ?? 0;
  return {
    reservationId: reservation.reservationId,
    charged,
    released: reservation.units - charged,
    credits: reservation.creditsAfterEnd ?? 0,
  };
}
