// Stage: decide before the plugin runs whether this call is free (plan quota, a cache hit the plan makes free, free
// operation) or costs its price, and, for a key with a daily spending cap, reserve that price against the cap
// before any money is held.
// Plan quotas and spending caps are counters in shared state; while it is unreachable they cannot be kept exact
// across processes, so such a call is refused with 503 (uncharged) rather than allowed to overshoot.

import type { Quote } from '../billing/plans.js';
import { reserveSpend } from '../billing/spend-cap.js';
import { DETAILS } from '../http/error-details.js';
import { type Denial, deny } from '../http/errors.js';
import { after, type MaybePromise } from '../kernel/maybe-promise.js';
import { toToken } from '../kernel/money.js';
import type { Services } from '../services.js';
import { StateUnavailableError } from '../state/shared-state.js';
import type { Resolved, Stage } from './call.js';
import { reserve } from './reservations.js';

export const COUNTERS_UNAVAILABLE: Denial = deny('UNAVAILABLE', DETAILS.countersDown(), 5);

/** A canary costs nothing and takes no plan quota: the system account is not a customer. */
const CANARY_FREE = 'canary';

export const price: Stage<Resolved> = (call, s) => {
  if (call.canary) {
    call.price = 0;
    call.freeReason = CANARY_FREE;
    return undefined;
  }
  const unavailable = (err: unknown): Denial => {
    if (err instanceof StateUnavailableError) return COUNTERS_UNAVAILABLE;
    throw err;
  };
  try {
    const priced = after(s.plans.quote(call.identity.userId, call.operation, call.cached), (quote) =>
      recordQuote(call, s, quote),
    );
    return priced instanceof Promise ? priced.catch(unavailable) : priced;
  } catch (err) {
    return unavailable(err);
  }
};

/** The quote on the call, its plan grant among the reservations, and the spending cap's share reserved. */
function recordQuote(call: Resolved, s: Services, quote: Quote): MaybePromise<Denial | undefined> {
  call.price = quote.price;
  call.freeReason = quote.freeReason;
  call.planGrant = quote.planGrant;
  const grant = quote.planGrant;
  if (grant) reserve(call, { name: 'plan quota', keep: () => grant.keep(), giveBack: () => grant.giveBack() });
  const cap = call.identity.dailySpendCap;
  if (cap === null || call.price === 0) return undefined;
  return reserveCap(call, s, cap);
}

async function reserveCap(call: Resolved, s: Services, cap: number): Promise<Denial | undefined> {
  const reservation = await reserveSpend(s.store.db, s.state, call.identity, cap, call.price);
  if (!reservation) {
    return deny('INSUFFICIENT_BALANCE', DETAILS.dailyCap(toToken(cap)));
  }
  // A charged call keeps exactly what it paid; a failed call and a free cache hit (charged 0) give it all back.
  reserve(call, {
    name: 'spending cap',
    keep: (o) => reservation.keep(o.charged),
    giveBack: () => reservation.giveBack(),
  });
  return undefined;
}
