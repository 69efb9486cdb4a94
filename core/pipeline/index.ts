// The order of an /api call, written here and only here:
//   request id -> authenticate -> resolve operation -> validate input -> idempotency -> admit (rate, concurrency)
//   -> cache read -> price (free cache hit / plan quota / per call) -> hold -> run plugin -> cache write -> capture
//   -> settle reservations (kept on success, given back otherwise) -> respond (envelope)
//   -> settle what needs the answer (the idempotency claim) -> call log
// Stages return a Denial to stop the call; exceptions are bugs or infrastructure faults and become 500.
import type { Context } from 'koa';
import { type Denial, deny } from '../http/errors.js';
import type { Services } from '../services.js';
import { isDatabaseUnavailable } from '../store/database-errors.js';
import { admit } from './admit.js';
import { authenticate } from './authenticate.js';
import { beginCall } from './begin-call.js';
import { cacheResult, readCache } from './cache.js';
import type { ApiCall, Stage } from './call.js';
import { logCall } from './call-log.js';
import { hold } from './hold.js';
import { beginIdempotency } from './idempotency.js';
import { price } from './price.js';
import { settleReservations } from './reservations.js';
import { resolveOperation } from './resolve-operation.js';
import { type ApiAnswer, respond, writeAnswer } from './respond.js';
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
  cacheResult,
];

async function runStages(call: ApiCall, s: Services): Promise<Denial | undefined> {
  for (const stage of BEFORE_SETTLE) {
    // An await per stage, promise or not, was ~1 us of a cache hit's ~13 us in the pipeline (issue 14).
    const result = stage(call, s);
    const denial = result instanceof Promise ? await result : result;
    if (denial) return denial;
    if (call.idempotency?.replay) return undefined;
  }
  return capture(call, s);
}

/** The Koa route of /api/{code}: calls with a body (the lean entry, lean-entry.ts, answers the others). */
export async function handleApiCall(ctx: Context, s: Services): Promise<void> {
  writeAnswer(ctx, await runCall(beginCall(ctx, s), s));
}

/**
 * A begun call through every stage to its call-log row, and its answer. POST /mcp enters here too, with a call
 * begun from its own request (core/mcp/tool-call.ts), so a tool call is an /api call.
 */
export async function runCall(call: ApiCall, s: Services): Promise<ApiAnswer> {
  let denial: Denial | undefined;
  try {
    denial = await runStages(call, s);
  } catch (err) {
    s.logger.error('api call failed', {
      request_id: call.requestId,
      operation: call.operation?.code,
      reason: (err as Error).stack ?? String(err),
    });
    denial = isDatabaseUnavailable(err)
      ? deny('UNAVAILABLE', 'The billing database is unavailable right now; nothing was charged. Retry shortly.', 5)
      : deny('INTERNAL');
  }
  // Whatever happened, no hold, quota or slot outlives the call.
  if (call.reservations.length > 0) await settleReservations(call, s, { ok: !denial, charged: call.charged });
  try {
    if (call.identity) Object.assign(call.headersOut, await s.plans.quotaHeaders(call.identity.userId));
  } catch (err) {
    s.logger.error('quota headers failed', { request_id: call.requestId, reason: (err as Error).message });
  }
  const answer = await respond(call, s, denial);
  const { status, body } = answer;
  // What is left settles with the answer (settleReservations took the others above).
  if (call.reservations.length > 0)
    await settleReservations(call, s, { ok: !denial, charged: call.charged, status, body }, true);
  logCall(call, s, status, denial);
  return answer;
}
