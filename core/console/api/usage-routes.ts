// GET /console/api/usage, /calls, /calls.csv (calls-csv.ts), /ledger: a user's own history. The call log is written in
// batches, so it is flushed first: what the user just did is always in the answer.
import type Router from '@koa/router';
import { listCalls, listLedger, usageByDayAndOperation } from '../../billing/usage.js';
import { chinaDayStart } from '../../kernel/china-day.js';
import { toToken } from '../../kernel/money.js';
import type { Services } from '../../services.js';
import { requireUser, userOf } from './auth.js';
import { callsCsvRoute } from './calls-csv.js';
import { callFilter, keyIdOf, presentCall } from './calls-query.js';
import { queryInt, queryOf } from './input.js';
import { iso, presentLedgerEntry } from './present.js';

const DAY_MS = 24 * 3600 * 1000;

export function usageRoutes(router: Router, s: Services): void {
  const db = s.store.db;
  const auth = requireUser(s);

  router.get('/console/api/usage', auth, async (ctx) => {
    const days = queryInt(ctx, 'days', 1, 366, 30);
    await s.callLog.flush();
    await s.refused.log.flush();
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
