// Stage: capture. Success turns the hold into exactly one ledger row (or charges a priced cache hit, or a call
// that placed no hold before its offline plugin (hold.ts), in one step);
// a failure writes nothing, and the hold, plan quota and the rest go back with the call's other reservations
// (reservations.ts). It returns what it did (Captured, call.ts) or a Denial; the runner (index.ts) puts it on the
// call.
// What must never be lost with a charge commits in the same transaction: the call-log row, and for an
// Idempotency-Key the response itself, so a client whose connection broke after the charge can replay it.
// A call made free by the plan quota writes its row at once as well (quota counters are rebuilt from the log).
import type { Kysely, Transaction } from 'kysely';
import { runBilling } from '../billing/billing-sql.js';
import { InsufficientBalanceError, postEntry } from '../billing/ledger.js';
import { DETAILS } from '../http/error-details.js';
import { type Denial, deny } from '../http/errors.js';
import type { MaybePromise } from '../kernel/maybe-promise.js';
import { toToken } from '../kernel/money.js';
import type { Services } from '../services.js';
import { type CallLogRow, insertCallLogRows } from '../store/call-log-rows.js';
import type { Database } from '../store/schema.js';
import { type Captured, type Keyed, NOT_CAPTURED } from './call.js';
import { callLogRow } from './call-log.js';
import { DONE_TTL_MS } from './idempotency.js';
import { successText } from './respond.js';

/** The call's Idempotency-Key claim was taken over by a retry (its lease ran out): this call must not charge. */
class ClaimLostError extends Error {}

/** This call's log row, after the rows of calls that ended before it (so the log stays in call order). */
function writeLogRows(
  db: Kysely<Database> | Transaction<Database>,
  call: Keyed,
  charged: number,
  earlier: CallLogRow[],
  now: number,
): Promise<void> {
  return insertCallLogRows(db, [...earlier, callLogRow(call, 200, undefined, now, charged)]);
}

/** The success body fixed in the capture transaction (an Idempotency-Key's stored answer), once it committed. */
interface FixedBody {
  text: string | undefined;
}

/** The writes that commit with the charge. `ownRow` false: the capture writes the log rows itself. */
function withCharge(
  call: Keyed,
  charged: number,
  earlier: CallLogRow[],
  fixed: FixedBody,
  ownRow = true,
): (trx: Transaction<Database>, balanceAfter: number) => Promise<void> {
  return async (trx, balanceAfter) => {
    const now = Date.now();
    if (ownRow) await writeLogRows(trx, call, charged, earlier, now);
    const idem = call.idempotency;
    if (!idem) return;
    const body = successText(call, charged, balanceAfter);
    const done = await runBilling(trx, 'completeClaim', [
      200,
      body,
      now + DONE_TTL_MS,
      call.identity.userId,
      idem.key,
      call.requestId,
    ]);
    if (Number(done.numAffectedRows ?? 0n) !== 1) throw new ClaimLostError();
    fixed.text = body;
  };
}

/** A call made free by the plan quota is logged at once too: the day's quota is rebuilt from these rows. */
const freeByPlan = (call: Keyed): boolean =>
  !call.hold && call.price === 0 && call.freeReason === 'plan' && !!call.planGrant;

export function capture(call: Keyed, s: Services): MaybePromise<Denial | Captured> {
  // Nothing to write (a free cache hit, a free operation): over without a promise.
  if (call.hold || call.price > 0 || freeByPlan(call)) return captureAndLog(call, s);
  afterCapture(call, s, NOT_CAPTURED);
  return NOT_CAPTURED;
}

/** Low-balance and quota alerts: in-memory comparisons, no database work unless this call crossed a user's line. */
function afterCapture(call: Keyed, s: Services, captured: Captured): void {
  s.alerts.afterCapture(call.identity.userId, captured.charged, captured.balanceAfter, call.planGrant?.usage);
}

async function captureAndLog(call: Keyed, s: Services): Promise<Denial | Captured> {
  const code = call.operation.code;
  const earlier = s.callLog.drain();
  const fixed: FixedBody = { text: undefined };
  let captured: Captured;
  try {
    if (call.hold) {
      const placed = call.hold;
      // Handed to the capture, settled either way: a failed capture gave the hold back itself (billing/money.ts),
      // so the hold's reservation entry finds nothing left (hold.ts).
      call.hold = undefined;
      const rows = [...earlier, callLogRow(call, 200, undefined, Date.now(), call.price)];
      const balanceAfter = await s.money.capture(
        placed,
        code,
        rows,
        call.idempotency ? withCharge(call, call.price, [], fixed, false) : undefined,
      );
      captured = { charged: call.price, balanceAfter, bodyOut: fixed.text, logged: true };
    } else if (call.chargeAfterRun && call.price > 0) {
      const rows = [...earlier, callLogRow(call, 200, undefined, Date.now(), call.price)];
      const balanceAfter = await s.money.chargeAtOnce(call.identity.userId, call.price, call.requestId, code, rows);
      captured = { charged: call.price, balanceAfter, bodyOut: undefined, logged: true };
    } else if (call.price > 0) {
      const entry = {
        userId: call.identity.userId,
        amount: -call.price,
        kind: 'charge' as const,
        ref: call.requestId,
        operation: code,
      };
      const balanceAfter = await postEntry(s.store.db, entry, withCharge(call, call.price, earlier, fixed));
      captured = { charged: call.price, balanceAfter, bodyOut: fixed.text, logged: true };
    } else {
      // Made free by the plan quota: written before the answer, with the other free calls of this turn
      // (call-log-writer.ts).
      await s.callLog.writeNow([...earlier, callLogRow(call, 200, undefined, Date.now())]);
      captured = { charged: 0, balanceAfter: undefined, bodyOut: undefined, logged: true };
    }
  } catch (err) {
    // Rolled back: nothing was charged, the hold (if any) was given back by the capture.
    s.callLog.requeue(earlier);
    if (err instanceof InsufficientBalanceError)
      return deny('INSUFFICIENT_BALANCE', DETAILS.costsMore(toToken(call.price)));
    if (err instanceof ClaimLostError) {
      return deny('IDEMPOTENCY_CONFLICT', DETAILS.idempotencyLeaseLost());
    }
    throw err;
  }
  afterCapture(call, s, captured);
  return captured;
}
