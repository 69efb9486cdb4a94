// POST/GET /console/api/orders and POST /console/api/redeem: how a user buys plans and packages.
import type Router from '@koa/router';
import type { Services } from '../../services.js';
import { createOrder, listOrders, OrderError } from '../../billing/orders.js';
import { defaultProvider } from '../../billing/payment-provider.js';
import { redeemCode, RedeemError } from '../../billing/redeem.js';
import { ItemGoneError } from '../../billing/grants.js';
import { toToken } from '../../billing/money.js';
import { ApiError } from '../../http/errors.js';
import { requireUser, userOf } from './auth.js';
import { bodyOf, queryInt, queryOf, reqEnum, reqString } from './input.js';
import { iso, presentOrder } from './present.js';

export function orderRoutes(router: Router, s: Services): void {
  const db = s.store.db;
  const auth = requireUser(s);

  router.get('/console/api/orders', auth, async (ctx) => {
    const limit = queryInt(ctx, 'limit', 1, 200, 50);
    const before = queryOf(ctx, 'before') === undefined ? undefined : queryInt(ctx, 'before', 1, Number.MAX_SAFE_INTEGER, 0);
    ctx.body = { orders: (await listOrders(db, { userId: userOf(ctx).id, limit, before })).map(presentOrder) };
  });

  router.post('/console/api/orders', auth, async (ctx) => {
    const b = bodyOf(ctx, ['kind', 'id']);
    const kind = reqEnum(b, 'kind', ['plan', 'package'] as const);
    const id = reqString(b, 'id', 100);
    try {
      const { order, payment } = await createOrder(db, s.registry.current, defaultProvider(), userOf(ctx).id, kind, id);
      ctx.status = 201;
      ctx.body = { order: presentOrder(order), payment };
    } catch (err) {
      if (err instanceof OrderError) throw new ApiError('RESOURCE_NOT_FOUND', err.message);
      throw err;
    }
  });

  router.post('/console/api/redeem', auth, async (ctx) => {
    const user = userOf(ctx);
    const code = reqString(bodyOf(ctx, ['code']), 'code', 64);
    try {
      const r = await redeemCode(db, s.registry.current, user.id, code);
      s.plans.invalidate(user.id);
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
      if (err instanceof ItemGoneError) throw new ApiError('CONFLICT', `This code is for a ${err.kind} that is no longer offered; ask the operator.`);
      throw err;
    }
  });
}
