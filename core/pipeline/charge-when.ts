// Stage: an operation's `charge_when` (operations.yaml, JSONata over the answer's `data`). A success is charged by
// default; when the expression says false (nothing was found, no location) the answer is sent free: the money
// hold goes back and no ledger row is written. Operations without it, and calls already free, do no work here.
import { releaseHold } from '../billing/holds.js';
import { memoryHoldsOf } from '../billing/memory-holds.js';
import type { Denial } from '../http/errors.js';
import type { Services } from '../services.js';
import type { ApiCall, Stage } from './call.js';

/** Written in the call log's free_reason. */
export const NOT_CHARGED = 'charge_when';

export const chargeWhen: Stage = (call, s) => {
  const expr = call.operation?.chargeExpr;
  if (!expr || call.price === 0 || call.dataJson === undefined) return undefined;
  return decide(call, s);
};

async function decide(call: ApiCall, s: Services): Promise<Denial | undefined> {
  const op = call.operation!;
  let charge: unknown;
  try {
    charge = await op.chargeExpr!.evaluate(JSON.parse(call.dataJson!));
  } catch (err) {
    // The operator's rule failed on this answer: charge as by default, and say so.
    s.logger.warn('charge_when failed; charged as usual', {
      request_id: call.requestId,
      operation: op.code,
      reason: (err as { message?: string }).message ?? String(err),
    });
    return undefined;
  }
  if (charge !== false) return undefined;
  call.price = 0;
  call.freeReason = NOT_CHARGED;
  const held = call.hold;
  if (held) {
    // The hold's reservation entry finds nothing left to settle (hold.ts).
    call.hold = undefined;
    if (held.memory) memoryHoldsOf(s.store.db).release(held.memory);
    else await releaseHold(s.store.db, held.id);
  }
  return undefined;
}
