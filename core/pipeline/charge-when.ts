// Stage: an operation's `charge_when` (operations.yaml, JSONata over the answer's `data`). A success is charged by
// default; when the expression says false (nothing was found, no location) the answer is sent free: the money
// hold goes back and no ledger row is written. Operations without it, and calls already free, do no work here.
import type { MaybePromise } from '../kernel/maybe-promise.js';
import type { Services } from '../services.js';
import type { ApiCall, Stage } from './call.js';

/** Written in the call log's free_reason. */
export const NOT_CHARGED = 'charge_when';

export const chargeWhen: Stage = (call, s) => {
  const rule = call.operation?.chargeRule;
  if (!rule || call.price === 0 || call.dataJson === undefined) return undefined;
  // A fresh answer was judged as an object when it was made (run-plugin.ts); only a cache hit is read from text.
  if (!call.cached) return call.chargeFree ? makeFree(call, s) : undefined;
  let charge: boolean | Promise<boolean>;
  try {
    charge = rule(JSON.parse(call.dataJson));
  } catch (err) {
    return chargeRuleFailed(call, s, err);
  }
  if (charge instanceof Promise)
    return charge.then(
      (c) => (c ? undefined : makeFree(call, s)),
      (err) => chargeRuleFailed(call, s, err),
    );
  return charge ? undefined : makeFree(call, s);
};

export function chargeRuleFailed(call: ApiCall, s: Services, err: unknown): undefined {
  // The operator's rule failed on this answer: charge as by default, and say so.
  s.logger.warn('charge_when failed; charged as usual', {
    request_id: call.requestId,
    operation: call.operation?.code,
    reason: (err as { message?: string }).message ?? String(err),
  });
  return undefined;
}

/** Free after all: the hold goes back now (a memory hold at once, a row hold with a promise). */
function makeFree(call: ApiCall, s: Services): MaybePromise<undefined> {
  call.price = 0;
  call.freeReason = NOT_CHARGED;
  const held = call.hold;
  if (held) {
    // The hold's reservation entry finds nothing left to settle (hold.ts).
    call.hold = undefined;
    const given = s.money.giveBack(held);
    if (given instanceof Promise) return given.then(() => undefined);
  }
  return undefined;
}
