// The order of an /api call, written here and only here:
//   request id -> authenticate -> resolve operation -> validate input -> idempotency -> admit (rate, concurrency)
//   -> cache read -> price (free cache hit / plan quota / per call) -> hold (or, for an offline plugin where a
//   hold is a round trip, none: charged in one step at capture) -> run plugin -> charge_when
//   -> cache write                                                               (BEFORE_CHARGE)
//   -> capture (the charge)
//   -> settle reservations (kept on success, given back otherwise) -> quota headers -> respond (envelope)
//   -> settle what needs the answer (the idempotency claim) -> call log                (AFTER_CHARGE)
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
import type { AfterStage, ApiCall, CallEnd, Captured, Ordered, Stage } from './call.js';
import { logCallStage } from './call-log.js';
import { chargeWhen } from './charge-when.js';
import { hold } from './hold.js';
import { beginIdempotency } from './idempotency.js';
import { price } from './price.js';
import { addQuotaHeaders } from './quota-headers.js';
import { settleOnAnswer, settleOnOutcome } from './reservations.js';
import { resolveOperation } from './resolve-operation.js';
import { respondStage } from './respond.js';
import { runPlugin } from './run-plugin.js';
import { capture } from './settle.js';
import { validateInput } from './validate-input.js';

/**
 * Up to the charge: a stage may refuse (a Denial ends the call), and a replay skips the rest. Each stage's needs
 * are checked at compile time against what the stages before it establish (Ordered, call.ts).
 */
const BEFORE_CHARGE = [
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
] as const;

/** What the call is once every stage before the charge ran: what capture takes. */
type ReadyToCharge = Ordered<typeof BEFORE_CHARGE, ApiCall>;

/** The list as the runner calls it: its order was checked above, so each stage gets a call that has what it needs. */
const RUN_BEFORE_CHARGE = BEFORE_CHARGE as readonly Stage<never>[] as readonly Stage[];

/** After the charge (capture) or a refusal: every call, in this order; none of these refuses. */
const AFTER_CHARGE: AfterStage[] = [
  // Kept on success, given back otherwise: no hold, quota or slot outlives the call.
  settleOnOutcome,
  addQuotaHeaders,
  respondStage,
  // What is left settles with the answer (the idempotency claim stores it).
  settleOnAnswer,
  logCallStage,
];

/** The stages from `from` on; without a promise while none of them needs to wait. */
function runStages(call: ApiCall, s: Services, from = 0): MaybePromise<Denial | undefined> {
  for (let i = from; i < RUN_BEFORE_CHARGE.length; i++) {
    const result = RUN_BEFORE_CHARGE[i](call, s);
    if (result instanceof Promise) {
      return result.then((denial) => denial ?? (call.idempotency?.replay ? undefined : runStages(call, s, i + 1)));
    }
    if (result) return result;
    if (call.idempotency?.replay) return undefined;
  }
  return charge(call as ReadyToCharge, s);
}

/** Capture, and what it returned onto the call (respond, the reservations and the call log read it). */
function charge(call: ReadyToCharge, s: Services): MaybePromise<Denial | undefined> {
  const captured = capture(call, s);
  if (captured instanceof Promise) return captured.then((c) => recordCapture(call, c));
  return recordCapture(call, captured);
}

function recordCapture(call: ApiCall, captured: Denial | Captured): Denial | undefined {
  if ('code' in captured) return captured;
  call.captured = captured;
  return undefined;
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

/** The call's end: its outcome, then each after-charge stage in order. */
function finish(call: ApiCall, s: Services, denial: Denial | undefined): MaybePromise<ApiAnswer> {
  const end: CallEnd = { ok: !denial, charged: call.captured.charged, denial, status: 0, body: '', answer: undefined };
  return after(runAfterStages(call, s, end, 0), () => answered(end));
}

/** The after-charge stages from `from` on; without a promise while none of them needs to wait. */
function runAfterStages(call: ApiCall, s: Services, end: CallEnd, from: number): MaybePromise<void> {
  for (let i = from; i < AFTER_CHARGE.length; i++) {
    const done = AFTER_CHARGE[i](call, s, end);
    if (done instanceof Promise) return done.then(() => runAfterStages(call, s, end, i + 1));
  }
  return undefined;
}

function answered(end: CallEnd): ApiAnswer {
  if (end.answer === undefined) throw new Error('respond is missing from AFTER_CHARGE');
  return end.answer;
}
