// Stage: reserve the price (available = balance - holds) before the plugin runs. Without enough available
// balance the plugin never runs: 402. A cache hit needs no hold; it is charged in one step when settled.

import { placeHold, releaseHold } from '../billing/holds.js';
import { memoryHoldsOf } from '../billing/memory-holds.js';
import { DETAILS } from '../http/error-details.js';
import { type Denial, deny } from '../http/errors.js';
import { after, type MaybePromise } from '../kernel/maybe-promise.js';
import { toToken } from '../kernel/money.js';
import type { Services } from '../services.js';
import type { ApiCall, Stage } from './call.js';
import { reserve } from './reservations.js';

/** Free calls and cache hits hold nothing: for them the stage is over without a promise. */
export const hold: Stage = (call, s) => (call.price === 0 || call.cached ? undefined : placeMoneyHold(call, s));

function placeMoneyHold(call: ApiCall, s: Services): MaybePromise<Denial | undefined> {
  if (s.store.dialect !== 'sqlite') return placeRowHold(call, s);
  // One process owns the database: the reservation lives in memory, no row and no transaction (memory-holds.ts).
  return after(memoryHoldsOf(s.store.db).place(call.identity!.userId, call.price), (memory) => {
    if (!memory) return insufficient(call.price);
    call.hold = { id: call.requestId, memory };
    reserve(call, moneyHold(call, s));
    return undefined;
  });
}

async function placeRowHold(call: ApiCall, s: Services): Promise<Denial | undefined> {
  const ok = await placeHold(
    s.store.db,
    {
      id: call.requestId,
      userId: call.identity!.userId,
      amount: call.price,
      // Grace (HOLD_GRACE_MS) beyond the deadline before a leftover hold counts as abandoned by a dead process;
      // the hold sweeper of every process releases it then (core/billing/holds.ts).
      expiresAt: Date.now() + call.operation!.timeoutMs + s.settings.holdGraceMs,
    },
    s.store.dialect,
  );
  if (!ok) return insufficient(call.price);
  call.hold = { id: call.requestId };
  reserve(call, moneyHold(call, s));
  return undefined;
}

/** A success's capture (settle.ts) turns the hold into the charge and clears it; whatever is left goes back. */
function moneyHold(call: ApiCall, s: Services) {
  const giveBack = (): MaybePromise<void> => {
    if (!call.hold) return;
    const { id, memory } = call.hold;
    call.hold = undefined;
    if (memory) memoryHoldsOf(s.store.db).release(memory);
    else return releaseHold(s.store.db, id);
  };
  return { name: 'money hold', keep: giveBack, giveBack };
}

const insufficient = (price: number) => deny('INSUFFICIENT_BALANCE', DETAILS.costsMore(toToken(price)));
