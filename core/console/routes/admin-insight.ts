// The operator's overview (core/console/contract/admin-insight.ts): calls and revenue per day, revenue from
// orders (plans and packages, money per currency, refunds), each operation's health over a chosen window,
// margin per day, operation and upstream (JSON or CSV), and the mail outbox with a test mail.
import { renderMail } from '../../accounts/mail/templates.js';
import { isValidEmail, normaliseEmail } from '../../accounts/users.js';
import { marginByDay } from '../../billing/margin.js';
import { operationHealth } from '../../billing/operation-health.js';
import { type RevenueDay, revenueByDay } from '../../billing/revenue.js';
import { adminStats } from '../../billing/stats.js';
import { ApiError } from '../../http/errors.js';
import { chinaDayStart } from '../../kernel/china-day.js';
import { asMicro, toToken } from '../../kernel/money.js';
import type { Services } from '../../services.js';
import { iso } from '../api/present.js';
import { ADMIN_INSIGHT } from '../contract/admin-insight.js';
import { invalid } from './input-checks.js';
import { implement } from './mount-routes.js';

const DAY_MS = 24 * 3600 * 1000;
const HOUR_MS = 3600 * 1000;
const MARGIN_CSV = ['day', 'operation', 'upstream', 'calls', 'revenue', 'cost', 'canary_cost', 'margin'] as const;

/** Minor units per currency -> major units (yuan, dollars) at the edge. */
const major = (m: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(m).map(([c, v]) => [c, v / 100]));
const revenueEdge = <T extends Omit<RevenueDay, 'day'>>(d: T) => ({
  ...d,
  value: toToken(asMicro(d.value)),
  paid: major(d.paid),
  refunded: major(d.refunded),
});
/** The first of the last `days` China days. */
const sinceDays = (days: number): number => chinaDayStart() - (days - 1) * DAY_MS;
const csvCell = (v: unknown): string =>
  v === null ? '' : /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v);

export function adminInsightRoutes(s: Services) {
  const db = s.store.db;
  return implement(ADMIN_INSIGHT, {
    adminStats: async ({ query }) => {
      await s.callLog.flush();
      await s.refused.log.flush();
      const stats = await adminStats(db, sinceDays(query.days ?? 7));
      const edge = <T extends { revenue: number }>(x: T): T => ({ ...x, revenue: toToken(x.revenue) });
      return {
        users: stats.users,
        totals: edge(stats.totals),
        days: stats.days.map((d) => ({ ...edge(d), top_operations: d.top_operations.map(edge) })),
      };
    },

    adminRevenue: async ({ query }) => {
      const r = await revenueByDay(db, sinceDays(query.days ?? 30));
      return { days: r.days.map(revenueEdge), totals: revenueEdge(r.totals) };
    },

    adminOperationHealth: async ({ query }) => {
      const hours = query.hours ?? 24;
      await s.callLog.flush();
      await s.refused.log.flush();
      const since = Date.now() - hours * HOUR_MS;
      const rows = await operationHealth(db, since);
      return {
        hours,
        since: new Date(since).toISOString(),
        operations: rows.map((r) => ({
          ...r,
          errors: r.calls - r.successes,
          success_rate: Math.round((r.successes / r.calls) * 10_000) / 10_000,
        })),
      };
    },

    // Calls, revenue, upstream cost, the canaries' upstream cost and margin per China day, operation and
    // upstream; ?format=csv for a file.
    adminMargin: async ({ query }, ctx) => {
      const days = query.days ?? 30;
      await s.callLog.flush();
      const rows = (await marginByDay(db, sinceDays(days))).map((r) => ({
        ...r,
        revenue: toToken(r.revenue),
        cost: toToken(r.cost),
        canary_cost: toToken(r.canary_cost),
        margin: toToken(r.margin),
      }));
      if (query.format !== 'csv') return { days, rows };
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', `attachment; filename="margin-${days}d.csv"`);
      ctx.body = `${[MARGIN_CSV.join(','), ...rows.map((r) => MARGIN_CSV.map((k) => csvCell(r[k])).join(','))].join('\n')}\n`;
      return undefined;
    },

    adminMail: async ({ query }) => {
      const limit = query.limit ?? 50;
      const rows = await db
        .selectFrom('mail_outbox')
        .selectAll()
        .where('id', '<', query.before ?? Number.MAX_SAFE_INTEGER)
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return {
        transport: s.mailer.transport,
        items: rows.map((r) => ({
          id: Number(r.id),
          to: r.to_addr,
          subject: r.subject,
          text: r.text_body,
          transport: r.transport,
          status: r.status,
          error: r.error,
          created_at: iso(r.created_at),
        })),
        next_before: rows.length === limit ? Number(rows[rows.length - 1].id) : null,
      };
    },

    adminMailTest: async ({ body }) => {
      const to = normaliseEmail(body.to);
      if (!isValidEmail(to)) throw invalid("'to' is not a valid email address.");
      const result = await s.mailer.send(renderMail('test', 'en', { email: to }));
      // Admins are operators: the server's answer helps them fix the settings.
      if (!result.ok)
        throw new ApiError(
          'MAIL_FAILED',
          `The test mail was not sent (${result.transport}): ${result.error.slice(0, 300)}`,
        );
      return { sent: true as const, transport: result.transport, id: result.id };
    },
  });
}
