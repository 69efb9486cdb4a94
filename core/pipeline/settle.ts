// Stage: capture. Success turns the hold into exactly one ledger row (or charges a priced cache hit in one step);
// a failure writes nothing, and the hold, plan quota and the rest go back with the call's other reservations
// (reservations.ts).
// What must never be lost with a charge commits in the same transaction: the call-log row, and for an
// Idempotency-Key the response itself, so a client whose connection broke after the charge can replay it.
// A call made free by the plan quota writes its row at once as well (quota counters are rebuilt from the log).
import type { Kysely, Transaction } from 'kysely';
import { runBilling } from '../billing/billing-sql.js';
import { InsufficientBalanceError, postEntry } from '../billing/ledger.js';
import { DETAILS } from '../http/error-details.js';
import { type Denial, deny } from '../http/errors.js';
import type { MaybePromise } from '../kernel/maybe-promise.js';
import type { Services } from '../services.js';
import { type CallLogRow, insertCallLogRows } from '../store/call-log-rows.js';
import type { Database } from '../store/schema.js';
import type { ApiCall } from './call.js';
import { callLogRow } from './call-log.js';
import { DONE_TTL_MS } from './idempotency.js';
import { successText } from './respond.js';

/** The call's Idempotency-Key claim was taken over by a retry (its lease ran out): this call must not charge. */
class ClaimLostError extends Error {}

/** This call's log row, after the rows of calls that ended before it (so the log stays in call order). */
function writeLogRows(
  db: Kysely<Database> | Transaction<Database>,
  call: ApiCall,
  earlier: CallLogRow[],
  now: number,
): Promise<void> {
  return insertCallLogRows(db, [...earlier, callLogRow(call, 200, undefined, now)]);
}

/** The writes that commit with the charge. `ownRow` false: the capture writes the log rows itself. */
function withCharge(
  call: ApiCall,
  earlier: CallLogRow[],
  ownRow = true,
): (trx: Transaction<Database>, balanceAfter: number) => Promise<void> {
  return async (trx, balanceAfter) => {
    const now = Date.now();
    if (ownRow) await writeLogRows(trx, call, earlier, now);
    const idem = call.idempotency;
    if (!idem) return;
    const body = successText(call, balanceAfter);
    const done = await runBilling(trx, 'completeClaim', [
      200,
      body,
      now + DONE_TTL_MS,
      call.identity!.userId,
      idem.key,
      call.requestId,
    ]);
    if (Number(done.numAffectedRows ?? 0n) !== 1) throw new ClaimLostError();
    call.bodyOut = body;
  };
}

/** A call made free by the plan quota is logged at once too: the day's quota is rebuilt from these rows. */
const freeByPlan = (call: ApiCall): boolean =>
  !call.hold && call.price === 0 && call.freeReason === 'plan' && !!call.planGrant;

export function capture(call: ApiCall, s: Services): MaybePromise<Denial | undefined> {
  // Nothing to write (a free cache hit, a free operation): over without a promise.
  if (call.hold || call.price > 0 || freeByPlan(call)) return captureAndLog(call, s);
  afterCapture(call, s);
  return undefined;
}

/** Low-balance and quota alerts: in-memory comparisons, no database work unless this call crossed a user's line. */
function afterCapture(call: ApiCall, s: Services): void {
  s.alerts.afterCapture(call.identity!.userId, call.charged, call.balanceAfter, call.planGrant?.usage);
}

async function captureAndLog(call: ApiCall, s: Services): Promise<Denial | undefined> {
  const code = call.operation!.code;
  const earlier = s.callLog.drain();
  try {
    if (call.hold) {
      const placed = call.hold;
      call.charged = call.price;
      // Settled either way: a failed capture gave the hold back itself (billing/money.ts).
      call.hold = undefined;
      const rows = [...earlier, callLogRow(call, 200, undefined)];
      call.balanceAfter = await s.money.capture(
        placed,
        code,
        rows,
        call.idempotency ? withCharge(call, [], false) : undefined,
      );
      call.logged = true;
    } else if (call.price > 0) {
      call.charged = call.price;
      const entry = {
        userId: call.identity!.userId,
        amount: -call.price,
        kind: 'charge' as const,
        ref: call.requestId,
        operation: code,
      };
      call.balanceAfter = await postEntry(s.store.db, entry, withCharge(call, earlier));
      call.logged = true;
    } else {
      // Made free by the plan quota: written before the answer, with the other free calls of this turn
      // (call-log-writer.ts).
      await s.callLog.writeNow([...earlier, callLogRow(call, 200, undefined, Date.now())]);
      call.logged = true;
    }
  } catch (err) {
    // Rolled back: nothing was charged, the hold (if any) is still there for release().
    s.callLog.requeue(earlier);
    call.charged = 0;
    call.bodyOut = undefined;
    if (err instanceof InsufficientBalanceError) return deny('INSUFFICIENT_BALANCE');
    if (err instanceof ClaimLostError) {
      return deny('IDEMPOTENCY_CONFLICT', DETAILS.idempotencyLeaseLost());
    }
    throw err;
  }
  afterCapture(call, s);
  return undefined;
}
