// An operation with its own plugin first and configured upstreams after it (operations.yaml `fallback_when`): the
// plugin answers; only when `fallback_when` says its answer is incomplete (e.g. no city) are the upstreams asked,
// and their mapped answer is laid over the plugin's (the merge must match `response`, upstreams.ts checks it). A
// failed or unavailable upstream is not the caller's failure: the plugin's own answer is sent, and `charge_when`
// judges it as usual (an answer without a location stays free). The call log names an upstream only when one
// was asked; an answer from the upstream cache (`cache_key`) asks nobody and costs nothing.
import type { Operation } from '../registry/registry.js';
import { type SharedRun, serialiseResult } from '../sandbox/outcome.js';
import type { Services } from '../services.js';
import type { Validated } from './call.js';
import { sandboxRequest } from './sandbox-request.js';
import { runUpstreams } from './upstreams.js';

export async function runWithFallback(
  call: Validated,
  s: Services,
  fallbackRule: NonNullable<Operation['fallbackRule']>,
): Promise<SharedRun> {
  const op = call.operation;
  const { outcome } = await s.sandbox.run(sandboxRequest(call));
  if (!outcome.ok) return { failure: outcome };
  const own = outcome.data;
  let ask = false;
  try {
    ask = await fallbackRule(own);
  } catch (err) {
    s.logger.warn('fallback_when failed: the plugin answer is sent', {
      request_id: call.requestId,
      operation: op.code,
      reason: (err as Error).message,
    });
  }
  if (ask && own && typeof own === 'object' && !Array.isArray(own)) {
    const merged = await runUpstreams(call, s, own as Record<string, unknown>);
    if (!('failure' in merged)) return merged;
    s.logger.info('fallback upstream failed: the plugin answer is sent', {
      request_id: call.requestId,
      operation: op.code,
      upstream: merged.upstream,
      code: merged.failure.code,
    });
    // Asked, failed: named in the call log, at no cost.
    if (op.chargeRule) call.sharedData = own;
    const result = serialiseResult(own, s.settings.maxResultBytes);
    return { result, cacheTtl: outcome.cache_ttl, ...(merged.upstream ? { upstream: merged.upstream } : {}) };
  }
  if (op.chargeRule) call.sharedData = own;
  return { result: serialiseResult(own, s.settings.maxResultBytes), cacheTtl: outcome.cache_ttl };
}
