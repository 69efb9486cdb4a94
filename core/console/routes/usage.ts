// A user's own history (core/console/contract/usage.ts): usage per China day and operation, the call log as JSON
// pages or a streamed CSV (core/console/api/calls-csv.ts), and the ledger. The call log and the refused-call log are
// written in batches, so they are flushed first: what the user just did is always in the answer.
import { listCalls, listLedger, usageByDayAndOperation } from '../../billing/usage.js';
import { chinaDayStart } from '../../kernel/china-day.js';
import { toToken } from '../../kernel/money.js';
import type { Services } from '../../services.js';
import { boundedWindow, CSV_LIMITS, sendCallsCsv } from '../api/calls-csv.js';
import { callFilter, presentCall } from '../api/calls-query.js';
import { csvLocale } from '../api/csv-locale.js';
import { iso, presentCustomerLedgerEntry } from '../api/present.js';
import { USAGE } from '../contract/usage.js';
import { implement } from './mount-routes.js';

const DAY_MS = 24 * 3600 * 1000;

interface Tally {
  calls: number;
  successes: number;
  /** micro-TOKEN until the answer */
  charged: number;
}

/** The id cursor of the next page: the last row's id when the page is full. */
const nextBefore = (rows: ReadonlyArray<{ id: number | string | bigint }>, limit: number): number | null =>
  rows.length === limit ? Number(rows[rows.length - 1].id) : null;

export function usageRoutes(s: Services) {
  const db = s.store.db;
  return implement(USAGE, {
    usage: async ({ user, query }) => {
      const days = query.days ?? 30;
      await s.callLog.flush();
      await s.refused.log.flush();
      const since = chinaDayStart() - (days - 1) * DAY_MS;
      const rows = await usageByDayAndOperation(db, user.id, since, query.key_id);
      const byDay = new Map<string, Tally & { day: string }>();
      const byOp = new Map<string, Tally & { operation: string | null }>();
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
      const edge = <T extends Tally>(x: T): T => ({ ...x, charged: toToken(x.charged) });
      return {
        days,
        from: iso(since),
        by_day: [...byDay.values()].map(edge),
        by_operation: [...byOp.values()]
          .sort((a, b) => b.calls - a.calls || String(a.operation).localeCompare(String(b.operation)))
          .map(edge),
        rows: rows.map(edge),
      };
    },

    calls: async ({ user, query }) => {
      const limit = query.limit ?? 50;
      await s.callLog.flush();
      const rows = await listCalls(db, callFilter(query, user.id, limit));
      return { calls: rows.map(presentCall), next_before: nextBefore(rows, limit) };
    },

    callsCsv: async ({ user, query }, ctx) => {
      const filter = boundedWindow(callFilter(query, user.id, query.limit ?? CSV_LIMITS.maxRows), Date.now());
      await sendCallsCsv(ctx, s, filter, csvLocale(query, ctx.get('accept-language')));
      return undefined;
    },

    ledger: async ({ user, query }) => {
      const limit = query.limit ?? 100;
      const rows = await listLedger(db, user.id, limit, query.before);
      return { entries: rows.map(presentCustomerLedgerEntry), next_before: nextBefore(rows, limit) };
    },
  });
}
