// The buyer's side of orders: payment methods, create (or reopen) an order, its pay page with live status,
// cancel, and redeem codes. Paying never happens here: only a verified notification or a provider query
// marks an order paid (core/billing/payments/settle-payment.ts), never the return URL.
import type Router from '@koa/router';
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
import { audit } from './audit.js';
import { requireUser, userOf } from './auth.js';
import { bodyOf, idParam, queryInt, queryOf, reqEnum, reqString } from './input.js';
import { spendOrderBudget } from './order-limits.js';
import { settleDeps } from './payment-notify-route.js';
import { presentAction, presentPaymentOrder } from './payment-present.js';
import { iso, langOf } from './present.js';

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

function optString(b: Record<string, unknown>, name: string, max: number): string | null {
  return b[name] === undefined || b[name] === null ? null : reqString(b, name, max);
}

export function orderRoutes(router: Router, s: Services): void {
  const db = s.store.db;
  const auth = requireUser(s);

  router.get('/console/api/payment-methods', auth, (ctx) => {
    ctx.body = {
      methods: [...s.payments.providers.values()].map((p) => ({
        id: p.id,
        kind: p.kind,
        methods: p.methods,
        currency: p.currency,
        label: p.label,
      })),
      default: s.payments.defaultInstance,
    };
  });

  router.get('/console/api/orders', auth, async (ctx) => {
    const limit = queryInt(ctx, 'limit', 1, 200, 50);
    const before =
      queryOf(ctx, 'before') === undefined ? undefined : queryInt(ctx, 'before', 1, Number.MAX_SAFE_INTEGER, 0);
    ctx.body = {
      orders: (await listOrders(db, { userId: userOf(ctx).id, limit, before })).map((o) =>
        presentPaymentOrder(o, langOf(ctx)),
      ),
    };
  });

  router.post('/console/api/orders', auth, async (ctx) => {
    const b = bodyOf(ctx, ['kind', 'id', 'method', 'channel']);
    const kind = reqEnum(b, 'kind', ['plan', 'package'] as const);
    const id = reqString(b, 'id', 100);
    const instance = optString(b, 'method', 32) ?? s.payments.defaultInstance;
    const channel = optString(b, 'channel', 32);
    await spendOrderBudget(ctx, s, 'create', userOf(ctx).id);
    try {
      const open = await createOrder(db, s.registry.current, s.payments, {
        userId: userOf(ctx).id,
        kind,
        itemId: id,
        instance,
        method: channel,
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
      ctx.body = {
        order: presentPaymentOrder(open.order, langOf(ctx)),
        payment: await presentAction(s.payments, open.order, open.action, langOf(ctx)),
        reused: open.reused,
      };
    } catch (err) {
      orderApiError(err);
    }
  });

  /** The pay page: the order, its next step while pending, and (at most every 10 s per order) a provider query. */
  router.get('/console/api/orders/:id', auth, async (ctx) => {
    const user = userOf(ctx);
    const id = idParam(ctx.params.id, 'order');
    let order = await findOrder(db, id, user.id).catch(orderApiError);
    const provider = s.payments.providers.get(order.instance ?? order.provider);
    if (queryOf(ctx, 'refresh') === '1' && order.status === 'pending' && provider && provider.kind !== 'manual') {
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
    ctx.body = {
      order: presentPaymentOrder(order, langOf(ctx)),
      payment: action ? await presentAction(s.payments, order, action, langOf(ctx)) : null,
    };
  });

  router.post('/console/api/orders/:id/cancel', auth, async (ctx) => {
    const id = idParam(ctx.params.id, 'order');
    await spendOrderBudget(ctx, s, 'cancel', userOf(ctx).id);
    const order = await cancelOrder(db, s.payments, userOf(ctx).id, id).catch(orderApiError);
    ctx.body = { order: presentPaymentOrder(order, langOf(ctx)) };
  });

  router.post('/console/api/redeem', auth, async (ctx) => {
    const user = userOf(ctx);
    const code = reqString(bodyOf(ctx, ['code']), 'code', 64);
    try {
      const r = await redeemCode(db, s.registry.current, user.id, code);
      s.plans.invalidate(user.id);
      if (r.delivery.balanceAfter !== null)
        s.alerts.observe(user.id, r.delivery.balanceAfter - r.delivery.tokensMicro, r.delivery.balanceAfter);
      // A plan (or package) change: audited, with the code's batch-visible form only.
      await audit(ctx, s, {
        action: 'redeem',
        targetType: r.kind,
        targetId: r.itemId,
        subjectUserId: user.id,
        detail: {
          code: r.code,
          tokens: toToken(r.delivery.tokensMicro),
          plan_ends_at: r.delivery.subscription ? iso(r.delivery.subscription.endsAt) : null,
        },
      });
      ctx.body = {
        code: r.code,
        kind: r.kind,
        id: r.itemId,
        tokens: toToken(r.delivery.tokensMicro),
        balance: r.delivery.balanceAfter === null ? null : toToken(r.delivery.balanceAfter),
        plan_ends_at: r.delivery.subscription ? iso(r.delivery.subscription.endsAt) : null,
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
  });
}
