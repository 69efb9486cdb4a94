// Stage: run the operation's plugin in the sandbox under the operation's deadline. The plugin returns an
// outcome; a failure outcome becomes a Denial with the plugin's public message.
import { deny, type ErrorCode } from '../http/errors.js';
import type { Stage } from './call.js';

export const runPlugin: Stage = async (call, s) => {
  if (call.cached) return undefined;
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
    }),
  );
  call.pluginMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (!outcome.ok) return deny(outcome.code as ErrorCode, outcome.message);
  call.data = outcome.data;
  if (outcome.cache_ttl !== undefined) call.cacheTtl = outcome.cache_ttl;
  return undefined;
};
