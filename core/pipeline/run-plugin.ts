// Stage: run the operation's plugin in the sandbox under the operation's deadline. The plugin returns an
// outcome; a failure outcome becomes a Denial with the plugin's public message. A success is serialised here,
// before capture: a result that cannot be sent (not JSON, or above MAX_RESULT_BYTES) is a failure, never billed.
import { type Denial, deny, type ErrorCode } from '../http/errors.js';
import { type SerialisedResult, serialiseResult } from '../sandbox/outcome.js';
import type { Services } from '../services.js';
import type { ApiCall, Stage } from './call.js';

/** Calls sharing one plugin run (single flight) share one outcome object: serialise it once for all of them. */
const serialised = new WeakMap<object, SerialisedResult>();

/** A cache hit runs no plugin: for it the stage is over without a promise. */
export const runPlugin: Stage = (call, s) => (call.cached ? undefined : run(call, s));

async function run(call: ApiCall, s: Services): Promise<Denial | undefined> {
  const op = call.operation!;
  const started = process.hrtime.bigint();
  const { outcome } = await s.flights.run(call.cacheKey!, () =>
    s.sandbox.run({
      plugin: op.plugin,
      operation: op.code,
      input: call.input!,
      options: op.options,
      timeoutMs: op.timeoutMs,
      requestId: call.requestId,
      // host.log is rate-limited per API key (core/sandbox/log-budget.ts).
      logKey: call.identity ? `key:${call.identity.keyId}` : undefined,
    }),
  );
  call.pluginMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (!outcome.ok) return deny(outcome.code as ErrorCode, outcome.message);
  let result = serialised.get(outcome);
  if (!result) serialised.set(outcome, (result = serialiseResult(outcome.data, s.settings.maxResultBytes)));
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
  if (outcome.cache_ttl !== undefined) call.cacheTtl = outcome.cache_ttl;
  return undefined;
}
