// /console/api/admin/orders: every user's orders for the operator, the badge of manual orders waiting for a
// confirmation, confirming a payment by hand ("补单") and cancelling a pending order.
import { PaymentOrder } from './components.js';
import { defineRoutes } from './define.js';
import {
  answer,
  as,
  body,
  both,
  currencyAmount,
  idQuery,
  list,
  oneOf,
  orNull,
  params,
  pathId,
  query,
  rBool,
  ref,
  rInt,
  rStr,
  type Static,
  Type,
  textQuery,
  upTo,
} from './schema.js';

export const ORDER_STATUSES = ['pending', 'paid', 'cancelled', 'expired', 'refunded', 'amount_mismatch'] as const;

const paymentOrder = ref('PaymentOrder', PaymentOrder);
/** An order as the operator sees it: with its buyer's email (null when the account is gone). */
const ownedOrder = both(paymentOrder, answer({ user_email: orNull(rStr) }));
const id = params({ id: pathId('order') });

export const ADMIN_ORDERS = defineRoutes({
  adminPendingCount: {
    method: 'GET',
    path: '/console/api/admin/orders/pending-count',
    summary: 'How many manual orders wait for an admin to confirm the payment (the admin badge)',
    auth: 'admin',
    responses: { 200: answer({ count: rInt }) },
  },
  adminOrders: {
    method: 'GET',
    path: '/console/api/admin/orders',
    summary: 'All orders',
    auth: 'admin',
    query: query({
      status: Type.Optional(
        oneOf(ORDER_STATUSES, {
          type: 'string',
          description: 'pending, paid, cancelled, expired, refunded or amount_mismatch',
        }),
      ),
      q: textQuery('order number (#123), email contains, or key prefix (sk_...)'),
      limit: upTo(500, 'page size, 1-500'),
      before: idQuery('id cursor: next_before of the previous page'),
    }),
    responses: { 200: answer({ orders: list(ownedOrder) }) },
  },
  adminConfirmOrder: {
    method: 'POST',
    path: '/console/api/admin/orders/:id/confirm',
    summary: 'Confirm payment and fulfil (idempotent); an amount_mismatch order needs paid_amount',
    auth: 'admin',
    params: id,
    body: body({
      paid_amount: Type.Optional(
        currencyAmount(
          "amount_mismatch orders only: what the buyer really paid, in the order's currency, at most 2 decimals",
        ),
      ),
    }),
    responses: {
      200: answer({
        order: as<Static<typeof PaymentOrder> | null>({ oneOf: [paymentOrder, { type: 'null' }] }),
        fulfilled: rBool,
      }),
    },
  },
  adminCancelOrder: {
    method: 'POST',
    path: '/console/api/admin/orders/:id/cancel',
    summary: "Cancel any user's pending order (closed upstream where possible; idempotent)",
    auth: 'admin',
    params: id,
    responses: { 200: answer({ order: ownedOrder }) },
  },
});
