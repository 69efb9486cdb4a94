// /console/api/admin/*: users, grants, orders and their confirmation, statistics. Every route needs the admin
// role, checked here on the server (anonymous 401, non-admin 403) whatever the web console shows.
import type Router from '@koa/router';
import { CANARY_EMAIL } from '../../accounts/system-users.js';
import { revokeAllUserTokens } from '../../accounts/user-tokens.js';
import { findUserByEmail, findUserById } from '../../accounts/users.js';
import { grantTokens, ItemGoneError } from '../../billing/grants.js';
import { InsufficientBalanceError } from '../../billing/ledger.js';
import { OrderError } from '../../billing/orders.js';
import { confirmManually } from '../../billing/payments/admin-actions.js';
import { adminStats } from '../../billing/stats.js';
import { ApiError } from '../../http/errors.js';
import { chinaDayStart } from '../../kernel/china-day.js';
import { toToken } from '../../kernel/money.js';
import type { Services } from '../../services.js';
import { emailsOf, parseSearch, searchOrders, userIdIn } from './admin-lookup.js';
import { audit } from './audit.js';
import { requireAdmin, userOf } from './auth.js';
import { bodyOf, idParam, invalid, minorOf, queryInt, queryOf, reqEnum, reqString, reqTokens } from './input.js';
import { settleDeps } from './payment-notify-route.js';
import { presentPaymentOrder } from './payment-present.js';
import { langOf, presentUserWithBalance } from './present.js';

const DAY_MS = 24 * 3600 * 1000;
const ORDER_STATUSES = ['pending', 'paid', 'cancelled', 'expired', 'refunded', 'amount_mismatch'] as const;

/** A positive amount with at most 2 decimals in the order's currency, as minor units. */
export function adminRoutes(router: Router, s: Services): void {
  const db = s.store.db;
  const admin = requireAdmin(s);

  router.get('/console/api/admin/users', admin, async (ctx) => {
    const search = parseSearch(queryOf(ctx, 'q'));
    const limit = queryInt(ctx, 'limit', 1, 500, 100);
    // The canaries' system account is the gateway's, not a customer (its id still opens it: /admin/users/:id).
    let query = db.selectFrom('users').selectAll().where('email', '!=', CANARY_EMAIL).orderBy('id').limit(limit);
    // An email part, or a key prefix (sk_...); a number is a user id here (there are no orders on this list).
    if (search?.kind === 'order') query = query.where('id', '=', search.id);
    else if (search) query = query.where(userIdIn(db, 'users.id', search));
    const rows = await query.execute();
    ctx.body = { users: rows.map(presentUserWithBalance) };
  });

  router.patch('/console/api/admin/users/:id', admin, async (ctx) => {
    const id = idParam(ctx.params.id, 'user');
    const status = reqEnum(bodyOf(ctx, ['status']), 'status', ['active', 'disabled'] as const);
    if (id === userOf(ctx).id && status === 'disabled')
      throw new ApiError('CONFLICT', 'Admins cannot disable their own account.');
    const row = await db.updateTable('users').set({ status }).where('id', '=', id).returningAll().executeTakeFirst();
    if (!row) throw new ApiError('RESOURCE_NOT_FOUND', `There is no user ${id}.`);
    if (status === 'disabled') await revokeAllUserTokens(db, id);
    // Keys are cached per process: drop them here and tell the other processes.
    s.keys.invalidateUser(id);
    await s.state.publishRevocation(id);
    await audit(ctx, s, {
      action: 'user.status',
      targetType: 'user',
      targetId: id,
      subjectUserId: id,
      detail: { status },
    });
    ctx.body = { user: presentUserWithBalance(row) };
  });

  router.post('/console/api/admin/grants', admin, async (ctx) => {
    const b = bodyOf(ctx, ['email', 'amount', 'reason']);
    const email = reqString(b, 'email', 254);
    const amount = reqTokens(b, 'amount');
    const reason = reqString(b, 'reason', 500).trim();
    if (amount === 0) throw invalid(`'amount' must not be 0: positive grants, negative deducts.`);
    const user = await findUserByEmail(db, email);
    if (!user) throw new ApiError('RESOURCE_NOT_FOUND', `There is no user with email ${email.slice(0, 80)}.`);
    try {
      const { balanceAfter, ref } = await grantTokens(db, { userId: user.id, amount, reason, adminId: userOf(ctx).id });
      s.alerts.observe(user.id, balanceAfter - amount, balanceAfter);
      await audit(ctx, s, {
        action: amount > 0 ? 'user.grant' : 'user.deduct',
        targetType: 'user',
        targetId: user.id,
        subjectUserId: user.id,
        detail: { amount: toToken(amount), reason, ref, balance_after: toToken(balanceAfter) },
      });
      ctx.status = 201;
      ctx.body = { user_id: user.id, email: user.email, amount: toToken(amount), balance: toToken(balanceAfter), ref };
    } catch (err) {
      if (err instanceof InsufficientBalanceError) {
        throw new ApiError(
          'CONFLICT',
          `Cannot deduct ${toToken(-amount)} TOKEN: it exceeds the user's available balance.`,
        );
      }
      throw err;
    }
  });

  // The admin badge: manual orders waiting for someone to confirm the money arrived (online ones settle alone).
  router.get('/console/api/admin/orders/pending-count', admin, async (ctx) => {
    const row = await db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('status', '=', 'pending')
      .where('provider', '=', 'manual')
      .executeTakeFirstOrThrow();
    ctx.body = { count: Number(row.n) };
  });

  router.get('/console/api/admin/orders', admin, async (ctx) => {
    const status = queryOf(ctx, 'status');
    if (status !== undefined && !(ORDER_STATUSES as readonly string[]).includes(status))
      throw invalid(`'status' must be one of ${ORDER_STATUSES.join(', ')}.`);
    const limit = queryInt(ctx, 'limit', 1, 500, 100);
    const before =
      queryOf(ctx, 'before') === undefined ? undefined : queryInt(ctx, 'before', 1, Number.MAX_SAFE_INTEGER, 0);
    const rows = await searchOrders(db, {
      status: status as (typeof ORDER_STATUSES)[number] | undefined,
      limit,
      before,
      search: parseSearch(queryOf(ctx, 'q')),
    });
    const emails = await emailsOf(
      db,
      rows.map((r) => Number(r.user_id)),
    );
    ctx.body = {
      orders: rows.map((r) => ({
        ...presentPaymentOrder(r, langOf(ctx)),
        user_email: emails.get(Number(r.user_id)) ?? null,
      })),
    };
  });

  router.post('/console/api/admin/orders/:id/confirm', admin, async (ctx) => {
    const id = idParam(ctx.params.id, 'order');
    const b = bodyOf(ctx, ['paid_amount']);
    const paidMinor = b.paid_amount === undefined ? undefined : minorOf(b.paid_amount, 'paid_amount');
    try {
      // Any instance's order may be completed by hand ("补单"), e.g. paid but the notification never came.
      const c = await confirmManually(settleDeps(s), id, userOf(ctx).id, paidMinor);
      if (c.order)
        await audit(ctx, s, {
          action: 'order.confirm',
          targetType: 'order',
          targetId: id,
          subjectUserId: Number(c.order.user_id),
          detail:
            paidMinor === undefined ? { outcome: c.outcome } : { outcome: c.outcome, paid_amount: paidMinor / 100 },
        });
      ctx.body = {
        order: c.order ? presentPaymentOrder(c.order, langOf(ctx)) : null,
        fulfilled: c.outcome === 'credited' || c.outcome === 'credited_late',
      };
    } catch (err) {
      if (err instanceof OrderError)
        throw new ApiError(err.reason === 'not_found' ? 'RESOURCE_NOT_FOUND' : 'CONFLICT', err.message);
      if (err instanceof ItemGoneError)
        throw new ApiError('CONFLICT', `Order ${id} is for a ${err.kind} that is no longer offered; it stays pending.`);
      throw err;
    }
  });

  router.get('/console/api/admin/stats', admin, async (ctx) => {
    const days = queryInt(ctx, 'days', 1, 366, 7);
    await s.callLog.flush();
    await s.refused.log.flush();
    const stats = await adminStats(db, chinaDayStart() - (days - 1) * DAY_MS);
    const edge = <T extends { revenue: number }>(x: T): T => ({ ...x, revenue: toToken(x.revenue) });
    ctx.body = {
      users: stats.users,
      totals: edge(stats.totals),
      days: stats.days.map((d) => ({ ...edge(d), top_operations: d.top_operations.map(edge) })),
    };
  });

  router.get('/console/api/admin/users/:id', admin, async (ctx) => {
    const user = await findUserById(db, idParam(ctx.params.id, 'user'));
    if (!user) throw new ApiError('RESOURCE_NOT_FOUND', `There is no user ${ctx.params.id}.`);
    ctx.body = { user: presentUserWithBalance(user) };
  });
}
