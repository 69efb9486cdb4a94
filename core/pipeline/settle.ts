// Stage: capture or release. Success turns the hold into exactly one ledger row (or charges a priced cache
// hit in one step) and commits plan quota; any failure releases the hold and the quota and writes nothing.
import { deny, type Denial } from '../http/errors.js';
import { captureHold, releaseHold } from '../billing/holds.js';
import { postEntry, InsufficientBalanceError } from '../billing/ledger.js';
import type { ApiCall } from './call.js';
import type { Services } from '../services.js';

export async function capture(call: ApiCall, s: Services): Promise<Denial | undefined> {
  const code = call.operation!.code;
  if (call.holdId) {
    call.balanceAfter = await captureHold(s.store.db, call.holdId, code);
    call.holdId = undefined;
    call.charged = call.price;
  } else if (call.price > 0) {
    try {
      call.balanceAfter = await postEntry(s.store.db, { userId: call.identity!.userId, amount: -call.price, kind: 'charge', ref: call.requestId, operation: code });
      call.charged = call.price;
    } catch (err) {
      if (err instanceof InsufficientBalanceError) return deny('INSUFFICIENT_BALANCE');
      throw err;
    }
  }
  if (call.planGrant) {
    await call.planGrant.commit();
    call.planGrant = undefined;
  }
  return undefined;
}

/** Runs on every failure path, including exceptions: idempotent. */
export async function release(call: ApiCall, s: Services): Promise<void> {
  if (call.holdId) {
    const id = call.holdId;
    call.holdId = undefined;
    await releaseHold(s.store.db, id);
  }
  if (call.planGrant) {
    const grant = call.planGrant;
    call.planGrant = undefined;
    await grant.release();
  }
}
