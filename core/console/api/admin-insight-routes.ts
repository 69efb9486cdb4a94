// /console/api/admin: revenue from orders (plans and packages, money per currency, refunds) per day, the health
// of each operation over a chosen window (success rate, p50/p95/p99 latency), and cancelling any pending order.
import type Router from '@koa/router';
import { marginByDay } from '../../billing/margin.js';
import { operationHealth } from '../../billing/operation-health.js';
import { cancelOrder, OrderError } from '../../billing/orders.js';
import { type RevenueDay, revenueByDay } from '../../billing/revenue.js';
import { ApiError } from '../../http/errors.js';
import { chinaDayStart } from '../../kernel/china-day.js';
import { asMicro, toToken } from '../../kernel/money.js';
import type { Services } from '../../services.js';
import { emailsOf } from './admin-lookup.js';
import { audit } from './audit.js';
import { requireAdmin } from './auth.js';
import { idParam, queryInt } from './input.js';
import { presentPaymentOrder } from './payment-present.js';
import { langOf } from './present.js';

const DAY_MS = 24 * 3600 * 1000;
const HOUR_MS = 3600 * 1000;
/** The windows the overview offers; any whole number of hours up to 31 days is accepted. */
const MAX_HOURS = 31 * 24;

/** Minor units per currency -> major units (yuan, dollars) at the edge. */
const major = (m: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(m).map(([c, v]) => [c, v / 100]));
const edge = <T extends Omit<RevenueDay, 'day'>>(d: T) => ({
  ...d,
  value: toToken(asMicro(d.value)),
  paid: major(d.paid),
  refunded: major(d.refunded),
});

export function adminInsightRoutes(router: Router, s: Services): void {
  const db = s.store.db;
  const admin = requireAdmin(s);

  router.get('/console/api/admin/revenue', admin, async (ctx) => {
    const days = queryInt(ctx, 'days', 1, 366, 30);
    const r = await revenueByDay(db, chinaDayStart() - (days - 1) * DAY_MS);
    ctx.body = { days: r.days.map(edge), totals: edge(r.totals) };
  });

  router.get('/console/api/admin/operation-health', admin, async (ctx) => {
    const hours = queryInt(ctx, 'hours', 1, MAX_HOURS, 24);
    await s.callLog.flush();
    await s.refused.log.flush();
    const since = Date.now() - hours * HOUR_MS;
    const rows = await operationHealth(db, since);
    ctx.body = {
      hours,
      since: new Date(since).toISOString(),
      operations: rows.map((r) => ({
        ...r,
        errors: r.calls - r.successes,
        success_rate: Math.round((r.successes / r.calls) * 10_000) / 10_000,
      })),
    };
  });

  // Calls, revenue, upstream cost, the canaries' upstream cost and margin per China day, operation and upstream;
  // ?format=csv for a file.
  router.get('/console/api/admin/margin', admin, async (ctx) => {
    const days = queryInt(ctx, 'days', 1, 366, 30);
    await s.callLog.flush();
    const rows = (await marginByDay(db, chinaDayStart() - (days - 1) * DAY_MS)).map((r) => ({
      ...r,
      revenue: toToken(r.revenue),
      cost: toToken(r.cost),
      canary_cost: toToken(r.canary_cost),
      margin: toToken(r.margin),
    }));
    if (ctx.query.format === 'csv') {
      const cell = (v: unknown): string =>
        v === null ? '' : /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v);
      const head = ['day', 'operation', 'upstream', 'calls', 'revenue', 'cost', 'canary_cost', 'margin'] as const;
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', `attachment; filename="margin-${days}d.csv"`);
      ctx.body = `${[head.join(','), ...rows.map((r) => head.map((k) => cell(r[k])).join(','))].join('\n')}\n`;
      return;
    }
    ctx.body = { days, rows };
  });

  router.post('/console/api/admin/orders/:id/cancel', admin, async (ctx) => {
    const id = idParam(ctx.params.id, 'order');
    try {
      const before = await db.selectFrom('orders').select('status').where('id', '=', id).executeTakeFirst();
      const order = await cancelOrder(db, s.payments, undefined, id);
      // Cancelling twice is a no-op and is audited once.
      if (before?.status === 'pending')
        await audit(ctx, s, {
          action: 'order.cancel',
          targetType: 'order',
          targetId: id,
          subjectUserId: Number(order.user_id),
          detail: { status: order.status },
        });
      const emails = await emailsOf(db, [Number(order.user_id)]);
      ctx.body = {
        order: { ...presentPaymentOrder(order, langOf(ctx)), user_email: emails.get(Number(order.user_id)) ?? null },
      };
    } catch (err) {
      if (err instanceof OrderError)
        throw new ApiError(err.reason === 'not_found' ? 'RESOURCE_NOT_FOUND' : 'CONFLICT', err.message);
      throw err;
    }
  });
}
