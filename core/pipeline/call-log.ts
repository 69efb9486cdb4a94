// Stage: one call-log row per /api call, success or failure. A charged call's row is written inside its capture
// transaction (settle.ts), so usage, stats and the counters seeded from the log always match the ledger, even
// after a crash; every other row is buffered and written in batches off the hot path. Refusals that prove nothing
// (no key, a bad or refused key, a rate or concurrency limit) get no row: they are counted per minute
// (core/store/refused-log.ts), so a flood of them costs a few rows a minute instead of a row a request.
// An upstream failure gets its class (core/sandbox/failure-class.ts) in the row; a live success of an operation
// with canaries is told to the health feed, so the canary need not probe while customers prove it works.
import { addressGroup } from '../http/connection-limits.js';
import type { Denial, ErrorCode } from '../http/errors.js';
import { classifyFailure } from '../sandbox/failure-class.js';
import type { Services } from '../services.js';
import type { CallLogRow } from '../store/call-log-writer.js';
import type { AfterStage, ApiCall } from './call.js';

const round2 = (ms: number): number => Math.round(ms * 100) / 100;

/** A live NOT_FOUND is the caller's own post gone, not a fault of the upstream; a canary's is its sample gone. */
function failureClass(call: ApiCall, denial: Denial | undefined): string | null {
  if (!denial || (denial.code === 'NOT_FOUND' && !call.canary)) return null;
  const m = denial.message;
  const text = typeof m === 'string' || m === undefined ? m : m.en;
  // The operator's reason (a network errno, a provider's answer) says more than the public sentence.
  return classifyFailure(denial.code, denial.detail === undefined ? text : `${text ?? ''} ${denial.detail}`);
}

/** `charged`: what the row says was paid; capture writes its row before its value is on the call. */
export function callLogRow(
  call: ApiCall,
  status: number,
  denial: Denial | undefined,
  now = Date.now(),
  charged = call.captured.charged,
): CallLogRow {
  const replay = !!call.idempotency?.replay;
  return {
    request_id: call.requestId,
    user_id: call.identity?.userId ?? null,
    key_id: call.identity?.keyId ?? null,
    operation: call.operation?.code ?? null,
    status,
    error_code: replay ? null : (denial?.code ?? null),
    charged,
    cached: call.cached ? 1 : 0,
    free_reason: replay ? 'idempotent_replay' : charged === 0 && !denial ? call.freeReason : null,
    duration_ms: round2(Number(process.hrtime.bigint() - call.startedNs) / 1e6),
    plugin_ms: call.pluginMs === undefined ? null : round2(call.pluginMs),
    ip: call.ip,
    created_at: now,
    canary: call.canary ? 1 : 0,
    failure_class: failureClass(call, denial),
    upstream: call.upstream ?? null,
    // What the upstream call cost us: for the answer it served (a failure costs nothing here).
    upstream_cost: status === 200 ? (call.costMicro ?? 0) : 0,
  };
}

/** Denials counted per minute instead of logged one row each. */
const COUNTED = new Set<ErrorCode>([
  'MISSING_API_KEY',
  'INVALID_API_KEY',
  'KEY_DISABLED',
  'KEY_EXPIRED',
  'IP_NOT_ALLOWED',
  'RATE_LIMITED',
  'CONCURRENCY_LIMITED',
]);

/**
 * A limit's 429 per key and minute; a refused key per key, address group and minute (its owner learns where it was
 * used from); no key per address group and minute.
 */
function countRefused(call: ApiCall, s: Services, status: number, code: ErrorCode): void {
  const id = call.identity;
  s.refused.log.count({
    kind: 'api',
    source: id && status === 429 ? '' : addressGroup(call.ip),
    userId: id?.userId ?? null,
    keyId: id?.keyId ?? null,
    target: call.operation?.code ?? null,
    code,
    status,
  });
}

/** After-charge stage: the call's row (or its count), last. */
export const logCallStage: AfterStage = (call, s, end) => logCall(call, s, end.status, end.denial);

function logCall(call: ApiCall, s: Services, status: number, denial: Denial | undefined): void {
  const durationMs = Number(process.hrtime.bigint() - call.startedNs) / 1e6;
  if (denial !== undefined && COUNTED.has(denial.code)) countRefused(call, s, status, denial.code);
  else if (call.captured.logged) s.callLog.touchKey(call.identity?.keyId ?? null, Date.now());
  else s.callLog.add(callLogRow(call, status, denial));
  if (call.canary) return;
  // A fresh answer (not a cache hit) proves the upstream works now.
  const op = call.operation;
  if (!denial && !call.cached && op?.canary) s.liveSuccess.note(op, call.dataJson, call.upstream);
  s.metrics.observeCall(
    op?.code ?? 'unknown',
    status,
    denial?.code ?? 'OK',
    !!call.cached,
    durationMs / 1000,
    call.captured.charged,
  );
}
