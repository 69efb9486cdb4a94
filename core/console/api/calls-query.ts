// What GET /console/api/calls and /calls.csv share: the query filter (status, code, key, time range, keyset) and the
// shape of one call-log row (JSON and CSV columns).
import type { CallFilter, CallRow } from '../../billing/usage.js';
import { asMicro, toToken } from '../../kernel/money.js';
import type { Call } from '../contract/components.js';
import { timeOf } from './input.js';
import { iso } from './present.js';

/** The call log's query filters, as the route definitions (core/console/contract/usage.ts) checked them. */
export interface CallQuery {
  code?: string;
  key_id?: number;
  status?: string;
  from?: string;
  to?: string;
  before?: number;
}

/** The filter of one user's calls; `key_id` ids are the user's own (another user's id simply matches nothing). */
export function callFilter(q: CallQuery, userId: number, limit: number): CallFilter {
  const status = q.status === undefined || q.status === 'success' || q.status === 'error' ? q.status : Number(q.status);
  return {
    userId,
    code: q.code,
    keyId: q.key_id,
    status,
    from: timeOf(q.from, 'from'),
    to: timeOf(q.to, 'to'),
    before: q.before,
    limit,
  };
}

export function presentCall(r: CallRow): Call {
  return {
    id: Number(r.id),
    request_id: r.request_id,
    created_at: iso(r.created_at),
    operation: r.operation,
    key_id: r.key_id === null ? null : Number(r.key_id),
    status: r.status,
    error_code: r.error_code,
    charged: toToken(asMicro(r.charged)),
    cached: Number(r.cached) === 1,
    free_reason: r.free_reason,
    duration_ms: r.duration_ms,
    ip: r.ip,
  };
}

/**
 * The customer's call-log CSV: the request id identifies a row (the log's own row number would tell the service's
 * volume), and the key is named as the console shows it: its name and prefix, not an internal id.
 */
export const CALL_CSV_HEADER = [
  'request_id',
  'created_at',
  'operation',
  'key',
  'status',
  'error_code',
  'charged',
  'cached',
  'free_reason',
  'duration_ms',
  'ip',
] as const;
