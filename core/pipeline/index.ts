// The order of an /api call, written here and only here:
//   request id -> authenticate -> resolve operation -> validate input -> idempotency -> admit (rate, concurrency)
//   -> cache read -> price (free cache hit / plan quota / per call) -> hold -> run plugin -> charge_when
//   -> cache write -> capture
//   -> settle reservations (kept on success, given back otherwise) -> respond (envelope)
//   -> settle what needs the answer (the idempotency claim) -> call log
// Stages return a Denial to stop the call; exceptions are bugs or infrastructure faults and become 500.
import type { ApiAnswer } from '../http/api-edge.js';
import { DETAILS } from '../http/error-details.js';
import { type Denial, deny } from '../http/errors.js';
import { after, type MaybePromise } from '../kernel/maybe-promise.js';
import type { Services } from '../services.js';
import { isDatabaseUnavailable } from '../store/database-errors.js';
import { admit } from './admit.js';
import { authenticate } from './authenticate.js';
import { cacheResult, readCache } from './cache.js';
import type { ApiCall, Stage } from './call.js';
import { logCall } from './call-log.js';
import { chargeWhen } from './charge-when.js';
import { hold } from './hold.js';
import { beginIdempotency } from './idempotency.js';
import { price } from './price.js';
import { settleReservations } from './reservations.js';
import { resolveOperation } from './resolve-operation.js';
import { respond } from './respond.js';
import { runPlugin } from './run-plugin.js';
import { capture } from './settle.js';
import { validateInput } from './validate-input.js';

const BEFORE_SETTLE: Stage[] = [
  authenticate,
  resolveOperation,
  validateInput,
  beginIdempotency,
  admit,
  readCache,
  price,
  hold,
  runPlugin,
  chargeWhen,
  cacheResult,
];

/** The stages from `from` on; without a promise while none of them needs to wait. */
function runStages(call: ApiCall, s: Services, from = 0): MaybePromise<Denial | undefined> {
  for (let i = from; i < BEFORE_SETTLE.length; i++) {
    const result = BEFORE_SETTLE[i](call, s);
    if (result instanceof Promise) {
      return result.then((denial) => denial ?? (call.idempotency?.replay ? undefined : runStages(call, s, i + 1)));
    }
    if (result) return result;
    if (call.idempotency?.replay) return undefined;
  }
  return capture(call, s);
}

/**
 * A begun call through every stage to its call-log row, and its answer. POST /mcp enters here too, with a call
 * begun from its own request (core/mcp/tool-call.ts), so a tool call is an /api call. Every step that can answer
 * at once does (kernel/maybe-promise.ts): a call answered from memory (a cache hit) makes no promise at all.
 */
export function runCall(call: ApiCall, s: Services): MaybePromise<ApiAnswer> {
  let denial: MaybePromise<Denial | undefined>;
  try {
    denial = runStages(call, s);
  } catch (err) {
    denial = failed(call, s, err);
  }
  if (denial instanceof Promise) return denial.catch((err) => failed(call, s, err)).then((d) => finish(call, s, d));
  return finish(call, s, denial);
}

/** A stage threw: a bug or an infrastructure fault, answered 500 (503 while the database is unavailable). */
function failed(call: ApiCall, s: Services, err: unknown): Denial {
  s.logger.error('api call failed', {
    request_id: call.requestId,
    operation: call.operation?.code,
    reason: (err as Error).stack ?? String(err),
  });
  return isDatabaseUnavailable(err) ? deny('UNAVAILABLE', DETAILS.billingDown(), 5) : deny('INTERNAL');
}

function finish(call: ApiCall, s: Services, denial: Denial | undefined): MaybePromise<ApiAnswer> {
  const outcome = { ok: !denial, charged: call.charged };
  // Whatever happened, no hold, quota or slot outlives the call.
  const settled = call.reservations.length > 0 ? settleReservations(call, s, outcome) : undefined;
  return after(settled, () =>
    after(addQuotaHeaders(call, s), () =>
      after(respond(call, s, denial), (answer) => {
        // What is left settles with the answer (settleReservations took the others above).
        const last =
          call.reservations.length > 0
            ? settleReservations(call, s, { ...outcome, status: answer.status, body: answer.body }, true)
            : undefined;
        return after(last, () => {
          logCall(call, s, answer.status, denial);
          if (denial) answer.denial = denial;
          return answer;
        });
      }),
    ),
  );
}

/** The plan's quota headers; an answer goes out without them rather than not at all. */
function addQuotaHeaders(call: ApiCall, s: Services): MaybePromise<void> {
  if (!call.identity) return undefined;
  const failure = (err: unknown): void =>
    s.logger.error('quota headers failed', { request_id: call.requestId, reason: (err as Error).message });
  try {
    const headers = s.plans.quotaHeaders(call.identity.userId);
    if (headers instanceof Promise) return headers.then((h) => void Object.assign(call.headersOut, h), failure);
    Object.assign(call.headersOut, headers);
  } catch (err) {
    failure(err);
  }
  return undefined;
}
