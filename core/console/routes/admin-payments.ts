// An operator's payments and redeem codes (core/console/contract/admin-payments.ts): instances with their health,
// the pending-order badge, the payment log, a provider query on demand, refunds, redeem-code batches.
import { findOrder, OrderError } from '../../billing/orders.js';
import { RefundError, refundOrder } from '../../billing/payments/admin-actions.js';
import { listPaymentLog } from '../../billing/payments/payment-log.js';
import { syncOrder } from '../../billing/payments/sweeper.js';
import { batchCodes, createRedeemBatch, listBatches, RedeemError } from '../../billing/redeem.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import { audit } from '../api/audit.js';
import { csvHeader, csvLocaleOf, localClock, UTF8_BOM } from '../api/csv-locale.js';
import { minorOf, parseIsoDate } from '../api/input.js';
import { settleDeps } from '../api/payment-notify-route.js';
import { presentPaymentOrder } from '../api/payment-present.js';
import { csv, iso, langOf } from '../api/present.js';
import { ADMIN_PAYMENTS } from '../contract/admin-payments.js';
import { invalid } from './input-checks.js';
import { implement } from './mount-routes.js';
import { paymentSummary } from './payment-summary.js';

export function adminPaymentRoutes(s: Services) {
  const db = s.store.db;
  const orderNotFound = (err: unknown): never => {
    if (err instanceof OrderError) throw new ApiError('RESOURCE_NOT_FOUND', err.message);
    throw err;
  };

  return implement(ADMIN_PAYMENTS, {
    adminPaymentSummary: () => paymentSummary(s),

    adminPaymentLog: async ({ query }) => {
      const limit = query.limit ?? 100;
      const rows = await listPaymentLog(db, {
        orderId: query.order,
        instance: query.instance,
        limit,
        before: query.before,
      });
      return {
        entries: rows.map((r) => ({
          id: Number(r.id),
          instance: r.instance,
          order_id: r.order_id === null ? null : Number(r.order_id),
          source: r.source as 'notify' | 'query' | 'admin',
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
    },

    adminSyncOrder: async ({ params: { id } }, ctx) => {
      const order = await findOrder(db, id).catch(orderNotFound);
      const provider = s.payments.providers.get(order.instance ?? order.provider);
      if (!provider || provider.kind === 'manual')
        throw new ApiError('CONFLICT', `Order ${id} has no online payment to query.`);
      const r = await syncOrder(settleDeps(s), provider, order);
      return { state: r.state, outcome: r.outcome, order: presentPaymentOrder(await findOrder(db, id), langOf(ctx)) };
    },

    adminRefundOrder: async ({ user, params: { id }, body }, ctx) => {
      // The schema checked the amount's form; minorOf turns it into minor units.
      const amountMinor = body.amount === undefined ? undefined : minorOf(body.amount, 'amount');
      try {
        const done = await refundOrder(settleDeps(s), {
          orderId: id,
          amountMinor,
          reason: body.reason.trim(),
          adminId: user.id,
          viaProvider: body.via_provider !== false,
        });
        return {
          order: presentPaymentOrder(done.order, langOf(ctx)),
          refund_no: done.refundNo,
          amount: done.amountMinor / 100,
          tokens: done.tokensMicro / 1e6,
          provider_refunded: done.providerRefunded,
        };
      } catch (err) {
        if (err instanceof RefundError) {
          if (err.reason === 'provider_refused') throw new ApiError('UPSTREAM_FAILED', err.message);
          throw new ApiError('CONFLICT', err.message);
        }
        return orderNotFound(err);
      }
    },

    adminCreateRedeemCodes: async ({ user, body: { kind, id, count, expires_at } }, ctx) => {
      let expiresAt: number | null = null;
      if (expires_at !== undefined && expires_at !== null) {
        // A real calendar date (the schema states the form only), in the future.
        expiresAt = parseIsoDate(expires_at, 'expires_at');
        if (expiresAt <= Date.now()) throw invalid(`'expires_at' must be in the future.`);
      }
      try {
        const { batchId, codes } = await createRedeemBatch(db, s.registry.current, {
          kind,
          itemId: id,
          count,
          expiresAt,
          createdBy: user.id,
        });
        await audit(ctx, s, {
          action: 'redeem_codes.create',
          targetType: 'redeem_batch',
          targetId: batchId,
          detail: { kind, id, count, expires_at: iso(expiresAt) },
        });
        return { batch_id: batchId, kind, id, count, expires_at: iso(expiresAt), codes };
      } catch (err) {
        if (err instanceof RedeemError) throw new ApiError('RESOURCE_NOT_FOUND', err.message);
        throw err;
      }
    },

    adminRedeemBatches: async ({ query }) => ({
      batches: (await listBatches(db, query.limit ?? 100)).map((r) => ({
        batch_id: Number(r.id),
        kind: r.kind,
        id: r.item_id,
        count: Number(r.count),
        redeemed: Number(r.redeemed),
        created_at: iso(r.created_at),
        expires_at: iso(r.expires_at),
      })),
    }),

    adminRedeemCsv: async ({ params: { batch } }, ctx) => {
      const loc = csvLocaleOf(ctx);
      const rows = await batchCodes(db, batch);
      if (rows.length === 0) throw new ApiError('RESOURCE_NOT_FOUND', `There is no redeem-code batch ${batch}.`);
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', `attachment; filename="redeem-codes-${batch}.csv"`);
      // A batch is small (at most 1,000 codes), so it is one string; BOM, labels and zone as in csv-locale.ts.
      const time = localClock(loc.tz);
      ctx.body =
        UTF8_BOM +
        csv(
          csvHeader(['code', 'kind', 'item_id', 'created_at', 'expires_at', 'redeemed_by', 'redeemed_at'], loc),
          rows.map((r) => [
            r.code,
            r.kind,
            r.item_id,
            time(r.created_at),
            time(r.expires_at),
            r.redeemed_by === null ? null : Number(r.redeemed_by),
            time(r.redeemed_at),
          ]),
        );
      return undefined;
    },
  });
}
