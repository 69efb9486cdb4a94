// The sandbox request of a call's own plugin, built one way for the plain run (run-plugin.ts) and the plugin-first
// run of a fallback operation (fallback.ts).
import type { RunRequest } from '../sandbox/sandbox.js';
import type { Validated } from './call.js';

export function sandboxRequest(call: Validated): RunRequest {
  const op = call.operation;
  return {
    plugin: op.plugin,
    operation: op.code,
    input: call.input,
    options: op.options,
    pin: call.pinProvider,
    timeoutMs: op.timeoutMs,
    requestId: call.requestId,
    // host.log is rate-limited per API key (core/sandbox/log-budget.ts).
    logKey: `key:${call.identity.keyId}`,
  };
}
