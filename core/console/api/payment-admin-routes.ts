// /console/api/admin/payments/*, refunds and order sync: what an operator needs to run online payments.
// Instances with their health, the pending-order badge, the payment log, a query on demand, refunds.
import type Router from '@koa/router';
import { findOrder, OrderError } from '../../billing/orders.js';
import { RefundError, refundOrder } from '../../billing/payments/admin-actions.js';
import { listPaymentLog } from '../../billing/payments/payment-log.js';
import { syncOrder } from '../../billing/payments/sweeper.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import { requireAdmin, userOf } from './auth.js';
import { bodyOf, idParam, invalid, minorOf, queryInt, queryOf, reqString } from './input.js';
import { settleDeps } from './payment-notify-route.js';
import { presentPaymentOrder } from './payment-present.js';
import { iso, langOf } from './present.js';

export function paymentAdminRoutes(router: Router, s: Services): void {
  const db = s.store.db;
  const admin = requireAdmin(s);

  router.get('/console/api/admin/payments/summary', admin, async (ctx) => {
    const pending = await db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    const mismatched = await db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', 'amount_mismatch')
      .executeTakeFirst();
    const instances = [];
    for (const p of s.payments.providers.values()) {
      const last = await db
        .selectFrom('payment_log')
        .select(['created_at', 'verified', 'outcome'])
        .where('instance', '=', p.id)
        .where('source', '=', 'notify')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      const lastOk = await db
        .selectFrom('payment_log')
        .select(['created_at'])
        .where('instance', '=', p.id)
        .where('verified', '=', 1)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      instances.push({
        id: p.id,
        kind: p.kind,
        methods: p.methods,
        currency: p.currency,
        label: p.label,
        notify_url: p.kind === 'manual' ? null : s.payments.notifyUrl(p.id),
        refunds: Boolean(p.refund),
        last_notification_at: iso(last?.created_at),
        last_notification_ok: last ? Number(last.verified) === 1 : null,
        last_verified_at: iso(lastOk?.created_at),
      });
    }
    ctx.body = { pending: Number(pending?.n ?? 0), amount_mismatch: Number(mismatched?.n ?? 0), instances };
  });

  router.get('/console/api/admin/payments/log', admin, async (ctx) => {
    const limit = queryInt(ctx, 'limit', 1, 500, 100);
    const orderId =
      queryOf(ctx, 'order') === undefined ? undefined : queryInt(ctx, 'order', 1, Number.MAX_SAFE_INTEGER, 0);
    const before =
      queryOf(ctx, 'before') === undefined ? undefined : queryInt(ctx, 'before', 1, Number.MAX_SAFE_INTEGER, 0);
    const rows = await listPaymentLog(db, { orderId, instance: queryOf(ctx, 'instance'), limit, before });
    ctx.body = {
      entries: rows.map((r) => ({
        id: Number(r.id),
        instance: r.instance,
        order_id: r.order_id === null ? null : Number(r.order_id),
        source: r.source,
        http_method: r.http_method,
        client_ip: r.client_ip,
        verified: Number(r.verified) === 1,
        state: r.state,
        outcome: r.outcome,
        event_id: r.event_id,
        raw: r.raw,
        created_at: iso(r.created_at),
      })),
      // The keyset cursor of the other paged lists: a full page may have more below its last id.
      next_before: rows.length === limit ? Number(rows[rows.length - 1].id) : null,
    };
  });

  router.post('/console/api/admin/orders/:id/sync', admin, async (ctx) => {
    const id = idParam(ctx.params.id, 'order');
    const order = await findOrder(db, id).catch((err: unknown) => {
      if (err instanceof OrderError) throw new ApiError('RESOURCE_NOT_FOUND', err.message);
      throw err;
    });
    const provider = s.payments.providers.get(order.instance ?? order.provider);
    if (!provider || provider.kind === 'manual')
      throw new ApiError('CONFLICT', `Order ${id} has no online payment to query.`);
    const r = await syncOrder(settleDeps(s), provider, order);
    ctx.body = { state: r.state, outcome: r.outcome, order: presentPaymentOrder(await findOrder(db, id), langOf(ctx)) };
  });

  router.post('/console/api/admin/orders/:id/refund', admin, async (ctx) => {
    const id = idParam(ctx.params.id, 'order');
    const b = bodyOf(ctx, ['amount', 'reason', 'via_provider']);
    const reason = reqString(b, 'reason', 500).trim();
    const amountMinor = b.amount === undefined ? undefined : minorOf(b.amount, 'amount');
    if (b.via_provider !== undefined && typeof b.via_provider !== 'boolean')
      throw invalid(`'via_provider' must be true or false.`);
    try {
      const done = await refundOrder(settleDeps(s), {
        orderId: id,
        amountMinor,
        reason,
        adminId: userOf(ctx).id,
        viaProvider: b.via_provider !== false,
      });
      ctx.body = {
        order: presentPaymentOrder(done.order, langOf(ctx)),
        refund_no: done.refundNo,
        amount: done.amountMinor / 100,
        tokens: done.tokensMicro / 1e6,
        provider_refunded: done.providerRefunded,
      };
    } catch (err) {
      if (err instanceof OrderError) throw new ApiError('RESOURCE_NOT_FOUND', err.message);
      if (err instanceof RefundError) {
        if (err.reason === 'provider_refused') throw new ApiError('UPSTREAM_FAILED', err.message);
        throw new ApiError('CONFLICT', err.message);
      }
      throw err;
    }
  });
}
