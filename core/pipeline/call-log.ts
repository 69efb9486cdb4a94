// Stage: one call-log row per /api call, success or failure, written in batches off the hot path.
import type { Denial } from '../http/errors.js';
import type { ApiCall } from './call.js';
import type { Services } from '../services.js';

export function logCall(call: ApiCall, s: Services, status: number, denial: Denial | undefined): void {
  const durationMs = Number(process.hrtime.bigint() - call.startedNs) / 1e6;
  s.callLog.add({
    request_id: call.requestId,
    user_id: call.identity?.userId ?? null,
    key_id: call.identity?.keyId ?? null,
    operation: call.operation?.code ?? null,
    status,
    error_code: call.idempotency?.replay ? null : (denial?.code ?? null),
    charged: call.charged,
    cached: call.cached ? 1 : 0,
    free_reason: call.idempotency?.replay ? 'idempotent_replay' : call.charged === 0 && !denial ? call.freeReason : null,
    duration_ms: Math.round(durationMs * 100) / 100,
    plugin_ms: call.pluginMs === undefined ? null : Math.round(call.pluginMs * 100) / 100,
    ip: call.ip,
    created_at: Date.now(),
  });
  s.metrics.observeCall(call.operation?.code ?? 'unknown', status, durationMs, call.charged);
}
