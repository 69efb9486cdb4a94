// Stage: reserve the price (available = balance - holds) before the plugin runs. Without enough available
// balance the plugin never runs: 402. A cache hit needs no hold; it is charged in one step when settled. Nor does
// a plugin that reaches no network where a hold is a database round trip (PostgreSQL): it is charged in one step
// after it ran (costsNothingToRun below).
// Where the hold lives (memory on SQLite, a group-committed row on PostgreSQL) is billing/money.ts's business.

import { DETAILS } from '../http/error-details.js';
import { type Denial, deny } from '../http/errors.js';
import { after, type MaybePromise } from '../kernel/maybe-promise.js';
import { toToken } from '../kernel/money.js';
import { reachesNoNetwork } from '../sandbox/manifest.js';
import type { Services } from '../services.js';
import type { ApiCall, Resolved, Stage } from './call.js';
import { reserve } from './reservations.js';

/** Free calls and cache hits hold nothing: for them the stage is over without a promise. */
export const hold: Stage<Resolved> = (call, s) => {
  if (call.price === 0 || call.cached) return undefined;
  if (s.money.holdIsRoundTrip && costsNothingToRun(call, s)) {
    call.chargeAfterRun = true;
    return undefined;
  }
  return placeMoneyHold(call, s);
};

/**
 * A plugin that reaches no network (a lookup in its own tables), with no upstream behind it and no Idempotency-Key
 * answer to store with the charge: running it before the money is known costs nothing but its CPU, so where a hold
 * is a database round trip the call is charged in one step after it (settle.ts). A caller without the money then
 * gets the same 402 after the lookup instead of before it.
 */
function costsNothingToRun(call: Resolved, s: Services): boolean {
  const op = call.operation;
  if (call.idempotency || op.fallbackRule || op.upstreams?.length) return false;
  const manifest = s.sandbox.manifest(op.plugin);
  return !!manifest && reachesNoNetwork(manifest);
}

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
