// Stage: run the operation's plugin in the sandbox under the operation's deadline. The plugin returns an
// outcome; a failure outcome becomes a Denial with the plugin's public message. A success is serialised here,
// before capture: a result that cannot be sent (not JSON, or above MAX_RESULT_BYTES) is a failure, never billed.
import { type Denial, deny, type ErrorCode } from '../http/errors.js';
import type { MaybePromise } from '../kernel/maybe-promise.js';
import type { ChargeRule } from '../registry/charge-rule.js';
import { type SharedRun, serialiseResult } from '../sandbox/outcome.js';
import type { Services } from '../services.js';
import type { Keyed, Stage } from './call.js';
import { chargeRuleFailed } from './charge-when.js';
import { runWithFallback } from './fallback.js';
import { sandboxRequest } from './sandbox-request.js';
import { runUpstreams } from './upstreams.js';

/** A cache hit runs no plugin: for it the stage is over without a promise. */
export const runPlugin: Stage<Keyed> = (call, s) => (call.cached ? undefined : run(call, s));

async function run(call: Keyed, s: Services): Promise<Denial | undefined> {
  const op = call.operation;
  const started = process.hrtime.bigint();
  // A probe of one upstream or provider must not share a customer's run (which may be served by another).
  const pinned = call.pinUpstream !== undefined || call.pinProvider !== undefined;
  const flight = pinned
    ? `${call.cacheKey}\u0000upstream:${call.pinUpstream ?? ''}\u0000provider:${call.pinProvider ?? ''}`
    : call.cacheKey;
  const shared = await s.flights.run(flight, () => runShared(call, s));
  call.pluginMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (shared.upstream !== undefined) {
    call.upstream = shared.upstream;
    call.headersOut['X-Upstream'] = shared.upstream;
  }
  if ('failure' in shared) return pluginDenial(call, s, shared.failure);
  const { result } = shared;
  if (shared.costMicro !== undefined) call.costMicro = shared.costMicro;
  if (shared.free !== undefined) call.chargeFree = shared.free;
  if ('invalid' in result) {
    s.logger.error('plugin result refused', {
      request_id: call.requestId,
      plugin: op.plugin,
      operation: op.code,
      reason: result.invalid,
    });
    return result.tooLarge
      ? deny('UPSTREAM_FAILED', `${op.plugin}: the result is larger than this gateway sends; nothing was charged.`)
      : deny(
          'INTERNAL',
          `plugin ${op.plugin} returned a result that cannot be sent; nothing was charged. Quote the request id.`,
        );
  }
  call.dataJson = result.json;
  if (shared.cacheTtl !== undefined) call.cacheTtl = shared.cacheTtl;
  return undefined;
}

/**
 * A plugin failure as the caller's refusal: its public message in both languages. Its `detail`, the technical
 * reason, goes to the operator's log line (with the request id) and to the call log's failure class, never into the
 * envelope.
 */
function pluginDenial(call: Keyed, s: Services, f: Extract<SharedRun, { failure: unknown }>['failure']): Denial {
  const denial: Denial = deny(f.code as ErrorCode, f.message);
  if (f.code === 'INTERNAL') return denial;
  if (f.message_zh) denial.zh = f.message_zh;
  if (f.detail) {
    denial.detail = f.detail;
    s.logger.warn('plugin failure', {
      request_id: call.requestId,
      operation: call.operation.code,
      plugin: call.operation.plugin,
      code: f.code,
      caller_message: f.message,
      reason: f.detail,
    });
  }
  return denial;
}

/** The run every call of one single flight shares, its result serialised once for all of them. */
function runShared(call: Keyed, s: Services): Promise<SharedRun> {
  const op = call.operation;
  const run = op.fallbackRule
    ? runWithFallback(call, s, op.fallbackRule)
    : op.upstreams
      ? runUpstreams(call, s)
      : runOne(call, s);
  // Without charge_when no promise more than before.
  const rule = op.chargeRule;
  return rule ? run.then((r) => ('result' in r && 'json' in r.result ? withChargeRule(call, s, r, rule) : r)) : run;
}

/**
 * charge_when on the answer as an object (a cache hit's is read from its text, charge-when.ts). A rule compiled to a
 * plain comparison answers at once (registry/charge-rule.ts), and then so does this: no promise per call.
 */
function withChargeRule(call: Keyed, s: Services, run: SharedRun, rule: ChargeRule): MaybePromise<SharedRun> {
  const data = call.sharedData;
  call.sharedData = undefined;
  const judged = (charge: boolean): SharedRun => ({ ...run, free: !charge });
  const failed = (err: unknown): SharedRun => {
    chargeRuleFailed(call, s, err);
    return run;
  };
  let charge: boolean | Promise<boolean>;
  try {
    charge = rule(data);
  } catch (err) {
    return failed(err);
  }
  return charge instanceof Promise ? charge.then(judged, failed) : judged(charge);
}

async function runOne(call: Keyed, s: Services): Promise<SharedRun> {
  const op = call.operation;
  const { outcome } = await s.sandbox.run(sandboxRequest(call));
  if (!outcome.ok) return { failure: outcome };
  if (op.chargeRule) call.sharedData = outcome.data;
  return { result: serialiseResult(outcome.data, s.settings.maxResultBytes), cacheTtl: outcome.cache_ttl };
}
