// The buyer's orders and redeem codes (core/console/contract/orders.ts). Paying never happens here: only a
// verified notification or a provider query marks an order paid (core/billing/payments/settle-payment.ts).
import { ItemGoneError } from '../../billing/grants.js';
import { cancelOrder, createOrder, findOrder, listOrders, OrderError } from '../../billing/orders.js';
import type { PaymentAction } from '../../billing/payment-provider.js';
import { syncOrder } from '../../billing/payments/sweeper.js';
import { RedeemError, redeemCode } from '../../billing/redeem.js';
import { clientIpOf } from '../../http/client-ip.js';
import { ApiError } from '../../http/errors.js';
import { toToken } from '../../kernel/money.js';
import { notifyOrderPending } from '../../notify/order-pending.js';
import type { Services } from '../../services.js';
import { audit } from '../api/audit.js';
import { spendOrderBudget } from '../api/order-limits.js';
import { settleDeps } from '../api/payment-notify-route.js';
import { presentAction, presentPaymentOrder } from '../api/payment-present.js';
import { iso, langOf } from '../api/present.js';
import { ORDERS } from '../contract/orders.js';
import { implement } from './mount-routes.js';

function orderApiError(err: unknown): never {
  if (err instanceof OrderError) {
    if (err.reason === 'unknown_item' || err.reason === 'not_found')
      throw new ApiError('RESOURCE_NOT_FOUND', err.message);
    if (err.reason === 'unknown_method') throw new ApiError('INVALID_INPUT', err.message);
    if (err.reason === 'provider_failed') throw new ApiError('UNAVAILABLE', err.message);
    throw new ApiError('CONFLICT', err.message);
  }
  throw err;
}

export function orderRoutes(s: Services) {
  const db = s.store.db;
  return implement(ORDERS, {
    paymentMethods: async () => ({
      methods: [...s.payments.providers.values()].map((p) => ({
        id: p.id,
        kind: p.kind,
        methods: [...p.methods],
        currency: p.currency,
        label: p.label,
      })),
      default: s.payments.defaultInstance,
    }),

    listOrders: async ({ user, query }, ctx) => ({
      orders: (await listOrders(db, { userId: user.id, limit: query.limit ?? 50, before: query.before })).map((o) =>
        presentPaymentOrder(o, langOf(ctx)),
      ),
    }),

    createOrder: async ({ user, body }, ctx) => {
      await spendOrderBudget(ctx, s, 'create', user.id);
      try {
        const open = await createOrder(db, s.registry.current, s.payments, {
          userId: user.id,
          kind: body.kind,
          itemId: body.id,
          instance: body.method ?? s.payments.defaultInstance,
          method: body.channel ?? null,
          clientIp: clientIpOf(ctx),
        });
        if (!open.reused && open.order.provider === 'manual') {
          const deps = { ...s, db, publicUrl: s.settings.accounts.publicUrl };
          await notifyOrderPending(deps, open.order).catch((err: unknown) =>
            s.logger.warn('order pending notice failed', {
              order: Number(open.order.id),
              reason: (err as Error).message,
            }),
          );
        }
        ctx.status = open.reused ? 200 : 201;
        return {
          order: presentPaymentOrder(open.order, langOf(ctx)),
          payment: await presentAction(s.payments, open.order, open.action, langOf(ctx)),
          reused: open.reused,
        };
      } catch (err) {
        return orderApiError(err);
      }
    },

    /** The pay page: the order, its next step while pending, and (at most every 10 s per order) a provider query. */
    getOrder: async ({ user, params: { id }, query }, ctx) => {
      let order = await findOrder(db, id, user.id).catch(orderApiError);
      const provider = s.payments.providers.get(order.instance ?? order.provider);
      if (query.refresh === '1' && order.status === 'pending' && provider && provider.kind !== 'manual') {
        const turn = await s.state.takeToken(`pay:query:${id}`, 0.1, 1);
        if (turn.allowed) {
          await syncOrder(settleDeps(s), provider, order).catch((err: unknown) =>
            s.logger.warn('order query failed', { order: id, reason: (err as Error).message }),
          );
          order = await findOrder(db, id, user.id);
        }
      }
      const action =
        order.status === 'pending' && order.pay_action ? (JSON.parse(order.pay_action) as PaymentAction) : null;
      return {
        order: presentPaymentOrder(order, langOf(ctx)),
        payment: action ? await presentAction(s.payments, order, action, langOf(ctx)) : null,
      };
    },

    cancelOrder: async ({ user, params: { id } }, ctx) => {
      await spendOrderBudget(ctx, s, 'cancel', user.id);
      const order = await cancelOrder(db, s.payments, user.id, id).catch(orderApiError);
      return { order: presentPaymentOrder(order, langOf(ctx)) };
    },

    redeem: async ({ user, body }, ctx) => {
      try {
        const r = await redeemCode(db, s.registry.current, user.id, body.code);
        s.plans.invalidate(user.id);
        if (r.delivery.balanceAfter !== null)
          s.alerts.observe(user.id, r.delivery.balanceAfter - r.delivery.tokensMicro, r.delivery.balanceAfter);
        const planEndsAt = r.delivery.subscription ? iso(r.delivery.subscription.endsAt) : null;
        // A plan (or package) change: audited, with the code's batch-visible form only.
        await audit(ctx, s, {
          action: 'redeem',
          targetType: r.kind,
          targetId: r.itemId,
          subjectUserId: user.id,
          detail: { code: r.code, tokens: toToken(r.delivery.tokensMicro), plan_ends_at: planEndsAt },
        });
        return {
          code: r.code,
          kind: r.kind,
          id: r.itemId,
          tokens: toToken(r.delivery.tokensMicro),
          balance: r.delivery.balanceAfter === null ? null : toToken(r.delivery.balanceAfter),
          plan_ends_at: planEndsAt,
        };
      } catch (err) {
        if (err instanceof RedeemError) {
          if (err.reason === 'unknown') throw new ApiError('RESOURCE_NOT_FOUND', err.message);
          throw new ApiError('CONFLICT', err.message);
        }
        if (err instanceof ItemGoneError)
          throw new ApiError('CONFLICT', `This code is for a ${err.kind} that is no longer offered; ask the operator.`);
        throw err;
      }
    },
  });
}
