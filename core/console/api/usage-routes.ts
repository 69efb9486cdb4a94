// GET /console/api/usage, /calls, /calls.csv (calls-csv.ts), /ledger: a user's own history. The call log is written in
// batches, so it is flushed first: what the user just did is always in the answer.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { type CallFilter, type CallRow, listCalls, listLedger, usageByDayAndOperation } from '../../billing/usage.js';
import { chinaDayStart } from '../../kernel/china-day.js';
import { asMicro, toToken } from '../../kernel/money.js';
import type { Services } from '../../services.js';
import { requireUser, userOf } from './auth.js';
import { callsCsvRoute } from './calls-csv.js';
import { invalid, queryInt, queryOf, queryTime } from './input.js';
import { iso, presentLedgerEntry } from './present.js';

const DAY_MS = 24 * 3600 * 1000;

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

export const CALL_CSV_HEADER = [
  'id',
  'request_id',
  'created_at',
  'operation',
  'key_id',
  'status',
  'error_code',
  'charged',
  'cached',
  'free_reason',
  'duration_ms',
  'ip',
] as const;

export function usageRoutes(router: Router, s: Services): void {
  const db = s.store.db;
  const auth = requireUser(s);

  router.get('/console/api/usage', auth, async (ctx) => {
    const days = queryInt(ctx, 'days', 1, 366, 30);
    await s.callLog.flush();
    const since = chinaDayStart() - (days - 1) * DAY_MS;
    const rows = await usageByDayAndOperation(db, userOf(ctx).id, since, keyIdOf(ctx));
    const byDay = new Map<string, { day: string; calls: number; successes: number; charged: number }>();
    const byOp = new Map<string, { operation: string | null; calls: number; successes: number; charged: number }>();
    for (const r of rows) {
      const d = byDay.get(r.day) ?? { day: r.day, calls: 0, successes: 0, charged: 0 };
      const o = byOp.get(String(r.operation)) ?? { operation: r.operation, calls: 0, successes: 0, charged: 0 };
      for (const agg of [d, o]) {
        agg.calls += r.calls;
        agg.successes += r.successes;
        agg.charged += r.charged;
      }
      byDay.set(r.day, d);
      byOp.set(String(r.operation), o);
    }
    const edge = <T extends { charged: number }>(x: T): T => ({ ...x, charged: toToken(x.charged) });
    ctx.body = {
      days,
      from: iso(since),
      by_day: [...byDay.values()].map(edge),
      by_operation: [...byOp.values()]
        .sort((a, b) => b.calls - a.calls || String(a.operation).localeCompare(String(b.operation)))
        .map(edge),
      rows: rows.map(edge),
    };
  });

  router.get('/console/api/calls', auth, async (ctx) => {
    const limit = queryInt(ctx, 'limit', 1, 500, 50);
    await s.callLog.flush();
    const rows = await listCalls(db, callFilter(ctx, userOf(ctx).id, limit));
    ctx.body = {
      calls: rows.map(presentCall),
      next_before: rows.length === limit ? Number(rows[rows.length - 1].id) : null,
    };
  });

  callsCsvRoute(router, s);

  router.get('/console/api/ledger', auth, async (ctx) => {
    const limit = queryInt(ctx, 'limit', 1, 500, 100);
    const before =
      queryOf(ctx, 'before') === undefined ? undefined : queryInt(ctx, 'before', 1, Number.MAX_SAFE_INTEGER, 0);
    const rows = await listLedger(db, userOf(ctx).id, limit, before);
    ctx.body = {
      entries: rows.map(presentLedgerEntry),
      next_before: rows.length === limit ? Number(rows[rows.length - 1].id) : null,
    };
  });
}
