// Every user's orders for the operator (core/console/contract/admin-orders.ts): the pending badge, the list,
// confirming a payment by hand and cancelling a pending order.
import { ItemGoneError } from '../../billing/grants.js';
import { cancelOrder, OrderError } from '../../billing/orders.js';
import { confirmManually } from '../../billing/payments/admin-actions.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import { emailsOf, parseSearch, searchOrders } from '../api/admin-lookup.js';
import { audit } from '../api/audit.js';
import { minorOf } from '../api/input.js';
import { settleDeps } from '../api/payment-notify-route.js';
import { presentPaymentOrder } from '../api/payment-present.js';
import { langOf } from '../api/present.js';
import { ADMIN_ORDERS } from '../contract/admin-orders.js';
import type { PaymentOrder } from '../contract/components.js';
import { implement } from './mount-routes.js';

/** An OrderError as the console answers it: an unknown order is 404, one in the wrong state 409. */
const orderRefusal = (err: OrderError): ApiError =>
  new ApiError(err.reason === 'not_found' ? 'RESOURCE_NOT_FOUND' : 'CONFLICT', err.message);

export function adminOrderRoutes(s: Services) {
  const db = s.store.db;
  const present = (o: Parameters<typeof presentPaymentOrder>[0], ctx: Parameters<typeof langOf>[0]) =>
    presentPaymentOrder(o, langOf(ctx)) as PaymentOrder;

  return implement(ADMIN_ORDERS, {
    // The admin badge: manual orders waiting for someone to confirm the money arrived (online ones settle alone).
    adminPendingCount: async () => {
      const row = await db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('status', '=', 'pending')
        .where('provider', '=', 'manual')
        .executeTakeFirstOrThrow();
      return { count: Number(row.n) };
    },

    adminOrders: async ({ query }, ctx) => {
      const rows = await searchOrders(db, {
        status: query.status,
        limit: query.limit ?? 100,
        before: query.before,
        search: parseSearch(query.q),
      });
      const emails = await emailsOf(
        db,
        rows.map((r) => Number(r.user_id)),
      );
      return {
        orders: rows.map((r) => ({ ...present(r, ctx), user_email: emails.get(Number(r.user_id)) ?? null })),
      };
    },

    adminConfirmOrder: async ({ user, params: { id }, body }, ctx) => {
      // The schema checked the amount's form; here it becomes minor units.
      const paidMinor = body.paid_amount === undefined ? undefined : minorOf(body.paid_amount, 'paid_amount');
      try {
        // Any instance's order may be completed by hand ("补单"), e.g. paid but the notification never came.
        const c = await confirmManually(settleDeps(s), id, user.id, paidMinor);
        if (c.order)
          await audit(ctx, s, {
            action: 'order.confirm',
            targetType: 'order',
            targetId: id,
            subjectUserId: Number(c.order.user_id),
            detail:
              paidMinor === undefined ? { outcome: c.outcome } : { outcome: c.outcome, paid_amount: paidMinor / 100 },
          });
        return {
          order: c.order ? present(c.order, ctx) : null,
          fulfilled: c.outcome === 'credited' || c.outcome === 'credited_late',
        };
      } catch (err) {
        if (err instanceof OrderError) throw orderRefusal(err);
        if (err instanceof ItemGoneError)
          throw new ApiError(
            'CONFLICT',
            `Order ${id} is for a ${err.kind} that is no longer offered; it stays pending.`,
          );
        throw err;
      }
    },

    adminCancelOrder: async ({ params: { id } }, ctx) => {
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
        return { order: { ...present(order, ctx), user_email: emails.get(Number(order.user_id)) ?? null } };
      } catch (err) {
        if (err instanceof OrderError) throw orderRefusal(err);
        throw err;
      }
    },
  });
}
