// Stage: decide before the plugin runs whether this call is free (plan quota, a cache hit the plan makes free, free
// operation) or costs its price, and, for a key with a daily spending cap, reserve that price against the cap
// before any money is held.
// Plan quotas and spending caps are counters in shared state; while it is unreachable they cannot be kept exact
// across processes, so such a call is refused with 503 (uncharged) rather than allowed to overshoot.

import { reserveSpend } from '../billing/spend-cap.js';
import { type Denial, deny } from '../http/errors.js';
import { toToken } from '../kernel/money.js';
import { StateUnavailableError } from '../state/shared-state.js';
import type { Stage } from './call.js';
import { reserve } from './reservations.js';

export const COUNTERS_UNAVAILABLE: Denial = deny(
  'UNAVAILABLE',
  'Spending caps and plan quotas cannot be checked right now; nothing was charged. Retry shortly.',
  5,
);

export const price: Stage = async (call, s) => {
  try {
    return await priceAndReserve(call, s);
  } catch (err) {
    if (err instanceof StateUnavailableError) return COUNTERS_UNAVAILABLE;
    throw err;
  }
};

const priceAndReserve: Stage = async (call, s) => {
  const quote = await s.plans.quote(call.identity!.userId, call.operation!, call.cached);
  call.price = quote.price;
  call.freeReason = quote.freeReason;
  call.planGrant = quote.planGrant;
  const grant = quote.planGrant;
  if (grant) reserve(call, { name: 'plan quota', keep: () => grant.commit(), giveBack: () => grant.release() });
  const cap = call.identity!.dailySpendCap;
  if (cap === null || call.price === 0) return undefined;
  const reservation = await reserveSpend(s.store.db, s.state, call.identity!, cap, call.price);
  if (!reservation) {
    return deny(
      'INSUFFICIENT_BALANCE',
      `This key's daily spending cap of ${toToken(cap)} TOKEN is reached; it resets at midnight China time (UTC+8).`,
    );
  }
  // A charged call keeps exactly what it paid; a failed call and a free cache hit (charged 0) give it all back.
  reserve(call, {
    name: 'spending cap',
    keep: (o) => reservation.settle(o.charged),
    giveBack: () => reservation.settle(0),
  });
  return undefined;
};
