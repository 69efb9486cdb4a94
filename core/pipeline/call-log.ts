// Stage: one call-log row per /api call, success or failure. A charged call's row is written inside its capture
// transaction (settle.ts), so usage, stats and the counters seeded from the log always match the ledger, even
// after a crash; every other row is buffered and written in batches off the hot path.
import type { Denial } from '../http/errors.js';
import type { Services } from '../services.js';
import type { CallLogRow } from '../store/call-log-writer.js';
import type { ApiCall } from './call.js';

const round2 = (ms: number): number => Math.round(ms * 100) / 100;

export function callLogRow(call: ApiCall, status: number, denial: Denial | undefined, now = Date.now()): CallLogRow {
  const replay = !!call.idempotency?.replay;
  return {
    request_id: call.requestId,
    user_id: call.identity?.userId ?? null,
    key_id: call.identity?.keyId ?? null,
    operation: call.operation?.code ?? null,
    status,
    error_code: replay ? null : (denial?.code ?? null),
    charged: call.charged,
    cached: call.cached ? 1 : 0,
    free_reason: replay ? 'idempotent_replay' : call.charged === 0 && !denial ? call.freeReason : null,
    duration_ms: round2(Number(process.hrtime.bigint() - call.startedNs) / 1e6),
    plugin_ms: call.pluginMs === undefined ? null : round2(call.pluginMs),
    ip: call.ip,
    created_at: now,
    upstream: call.upstream ?? null,
    // What the upstream call cost us: for the answer it served (a failure costs nothing here).
    upstream_cost: status === 200 ? (call.costMicro ?? 0) : 0,
  };
}

export function logCall(call: ApiCall, s: Services, status: number, denial: Denial | undefined): void {
  const durationMs = Number(process.hrtime.bigint() - call.startedNs) / 1e6;
  if (call.logged) s.callLog.touchKey(call.identity?.keyId ?? null, Date.now());
  else s.callLog.add(callLogRow(call, status, denial));
  s.metrics.observeCall(
    call.operation?.code ?? 'unknown',
    status,
    denial?.code ?? 'OK',
    !!call.cached,
    durationMs / 1000,
    call.charged,
  );
}
