// Everything a call takes before its outcome is known (a concurrency slot, a spending-cap amount, plan quota, the
// money hold, the Idempotency-Key claim) is one entry in `call.reservations`, and they are settled here, in one
// place: kept when the call succeeded, given back when it did not, newest first, each exactly once. A new kind of
// reservation is one more entry pushed by the stage that takes it; nothing else changes.
//
// Two moments: most entries settle once the outcome is known, before the answer is built (so the quota headers
// already count a given-back grant); an entry that needs the answer itself (the idempotency claim stores the
// response) settles after it, with `afterAnswer`.

import type { MaybePromise } from '../kernel/maybe-promise.js';
import type { Services } from '../services.js';
import type { AfterStage, ApiCall, Outcome, Reservation } from './call.js';

export function reserve(call: ApiCall, r: Reservation): void {
  call.reservations.push(r);
}

/** After-charge stage: the entries that settle on the outcome, before the answer is built. */
export const settleOnOutcome: AfterStage = (call, s, end) =>
  call.reservations.length > 0 ? settleReservations(call, s, end) : undefined;

/** After-charge stage: the entries that need the answer (the idempotency claim stores it). */
export const settleOnAnswer: AfterStage = (call, s, end) =>
  call.reservations.length > 0 ? settleReservations(call, s, end, true) : undefined;

/**
 * Settle the entries of one moment, newest first. A failure to settle one is logged and does not stop the
 * others: each entry's own expiry (slot TTL, hold expiry, claim lease) is the backstop. Entries that settle at once
 * (in memory) are settled without a promise.
 */
export function settleReservations(
  call: ApiCall,
  s: Services,
  outcome: Outcome,
  afterAnswer = false,
): MaybePromise<void> {
  const due = call.reservations.filter((r) => !!r.afterAnswer === afterAnswer);
  call.reservations = call.reservations.filter((r) => !!r.afterAnswer !== afterAnswer);
  return settleFrom(call, s, outcome, due, due.length - 1);
}

function settleFrom(
  call: ApiCall,
  s: Services,
  outcome: Outcome,
  due: Reservation[],
  from: number,
): MaybePromise<void> {
  for (let i = from; i >= 0; i--) {
    const r = due[i];
    try {
      const settled = outcome.ok ? r.keep(outcome) : r.giveBack(outcome);
      if (settled instanceof Promise) {
        return settled.then(
          () => settleFrom(call, s, outcome, due, i - 1),
          (err) => {
            logFailure(call, s, r, err);
            return settleFrom(call, s, outcome, due, i - 1);
          },
        );
      }
    } catch (err) {
      logFailure(call, s, r, err);
    }
  }
  return undefined;
}

function logFailure(call: ApiCall, s: Services, r: Reservation, err: unknown): void {
  s.logger.error('settling a reservation failed', {
    request_id: call.requestId,
    reservation: r.name,
    reason: (err as Error).message,
  });
}
