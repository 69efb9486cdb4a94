// Stage: reserve the price (available = balance - holds) before the plugin runs. Without enough available
// balance the plugin never runs: 402. A cache hit needs no hold; it is charged in one step when settled.
// Where the hold lives (memory on SQLite, a group-committed row on PostgreSQL) is billing/money.ts's business.

import { DETAILS } from '../http/error-details.js';
import { type Denial, deny } from '../http/errors.js';
import { after, type MaybePromise } from '../kernel/maybe-promise.js';
import { toToken } from '../kernel/money.js';
import type { Services } from '../services.js';
import type { ApiCall, Resolved, Stage } from './call.js';
import { reserve } from './reservations.js';

/** Free calls and cache hits hold nothing: for them the stage is over without a promise. */
export const hold: Stage<Resolved> = (call, s) =>
  call.price === 0 || call.cached ? undefined : placeMoneyHold(call, s);

function placeMoneyHold(call: Resolved, s: Services): MaybePromise<Denial | undefined> {
  // Grace (HOLD_GRACE_MS) beyond the deadline before a leftover hold counts as abandoned by a dead process; the
  // hold sweeper of every process gives it back then (core/billing/holds.ts).
  const expiresAt = Date.now() + call.operation.timeoutMs + s.settings.holdGraceMs;
  return after(s.money.place(call.identity.userId, call.price, call.requestId, expiresAt), (placed) => {
    if (!placed) return insufficient(call.price);
    call.hold = placed;
    reserve(call, moneyHold(call, s));
    return undefined;
  });
}

/** A success's capture (settle.ts) turns the hold into the charge and clears it; whatever is left goes back. */
function moneyHold(call: ApiCall, s: Services) {
  const giveBack = (): MaybePromise<void> => {
    if (!call.hold) return;
    const placed = call.hold;
    call.hold = undefined;
    return s.money.giveBack(placed);
  };
  return { name: 'money hold', keep: giveBack, giveBack };
}

const insufficient = (price: number) => deny('INSUFFICIENT_BALANCE', DETAILS.costsMore(toToken(price)));
