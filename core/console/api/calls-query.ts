// What GET /console/api/calls and /calls.csv share: the query filter (status, code, key, time range, keyset) and the
// shape of one call-log row (JSON and CSV columns). Its own file so the CSV route and the JSON routes import it
// rather than each other.
import type { Context } from 'koa';
import type { CallFilter, CallRow } from '../../billing/usage.js';
import { asMicro, toToken } from '../../kernel/money.js';
import { invalid, queryInt, queryOf, queryTime } from './input.js';
import { iso } from './present.js';

/** `key_id` in the query: one API key's calls (ids are the user's own; another user's id simply matches nothing). */
export function keyIdOf(ctx: Context): number | undefined {
  return queryOf(ctx, 'key_id') === undefined ? undefined : queryInt(ctx, 'key_id', 1, Number.MAX_SAFE_INTEGER, 0);
}

export function callFilter(ctx: Context, userId: number, limit: number): CallFilter {
  const status = queryOf(ctx, 'status');
  let parsedStatus: CallFilter['status'];
  if (status === 'success' || status === 'error') parsedStatus = status;
  else if (status !== undefined) {
    if (!/^[1-5]\d\d$/.test(status)) throw invalid(`'status' must be success, error or an HTTP status such as 402.`);
    parsedStatus = Number(status);
  }
  const before = queryOf(ctx, 'before');
  return {
    userId,
    code: queryOf(ctx, 'code'),
    keyId: keyIdOf(ctx),
    status: parsedStatus,
    from: queryTime(ctx, 'from'),
    to: queryTime(ctx, 'to'),
    before: before === undefined ? undefined : queryInt(ctx, 'before', 1, Number.MAX_SAFE_INTEGER, 0),
    limit,
  };
}

export function presentCall(r: CallRow) {
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
