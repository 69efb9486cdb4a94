// The buyer's side of orders: payment methods, create (or reopen) an order, its pay page with live status,
// cancel, and redeem codes. Paying never happens here: only a verified notification or a provider query marks an
// order paid (core/billing/payments/settle-payment.ts), never the return URL.
import { Bilingual, PaymentAction, PaymentOrder } from './components.js';
import { defineRoutes } from './define.js';
import {
  answer,
  as,
  body,
  idQuery,
  list,
  nullable,
  oneOf,
  orNull,
  params,
  pathId,
  query,
  rBool,
  ref,
  rStr,
  rTime,
  rTokens,
  type Static,
  Type,
  text,
  upTo,
} from './schema.js';

const order = ref('PaymentOrder', PaymentOrder);
const action = ref('PaymentAction', PaymentAction);
const id = params({ id: pathId('order') });
const kind = oneOf(['plan', 'package']);

/** The created (or reopened) order and its pay step. */
const opened = answer({ order, payment: action, reused: rBool });

export const ORDERS = defineRoutes({
  paymentMethods: {
    method: 'GET',
    path: '/console/api/payment-methods',
    summary: 'Payment instances a buyer can choose, with their channels and currency',
    auth: 'user',
    responses: {
      200: answer({
        methods: list(answer({ id: rStr, kind: rStr, methods: list(rStr), currency: rStr, label: Bilingual })),
        default: Type.String({ description: 'the instance used when an order names none' }),
      }),
    },
  },
  listOrders: {
    method: 'GET',
    path: '/console/api/orders',
    summary: 'My orders',
    auth: 'user',
    query: query({
      limit: upTo(200, 'page size, 1-200'),
      before: idQuery('id cursor: orders below this id'),
    }),
    responses: { 200: answer({ orders: list(order) }) },
    links: {
      getOrder: {
        operationId: 'getOrder',
        parameters: { id: '$response.body#/orders/0/id' },
        description: 'The newest order',
      },
    },
  },
  createOrder: {
    method: 'POST',
    path: '/console/api/orders',
    summary: 'Order a plan or package (200 with reused: true when the same open order is reopened)',
    auth: 'user',
    body: body({
      kind,
      id: text(100),
      method: Type.Optional(
        nullable(
          text(32, {
            description: 'payment instance id from GET /console/api/payment-methods (default: the first)',
            'x-rule': 'an instance id of GET /console/api/payment-methods',
          }),
        ),
      ),
      channel: Type.Optional(
        nullable(
          text(32, {
            description: "the instance's method, e.g. alipay/wxpay for EPay, page/qr for Alipay",
            'x-rule': "one of the instance's channels",
          }),
        ),
      ),
    }),
    // 201: a new order; 200: the same open order reopened (reused: true).
    responses: { 201: opened, 200: opened },
    errors: ['UNAVAILABLE'],
    links: {
      getOrder: {
        operationId: 'getOrder',
        parameters: { id: '$response.body#/order/id' },
        description: 'Follow the order',
      },
      cancelOrder: {
        operationId: 'cancelOrder',
        parameters: { id: '$response.body#/order/id' },
        description: 'Cancel it while pending',
      },
      adminConfirmOrder: {
        operationId: 'adminConfirmOrder',
        parameters: { id: '$response.body#/order/id' },
        description: 'An operator confirms the payment',
      },
    },
  },
  getOrder: {
    method: 'GET',
    path: '/console/api/orders/:id',
    summary:
      'One order and, while pending, its pay action (redirect, form, QR code as SVG, or instructions); refresh=1 asks the provider (at most every 10 s)',
    auth: 'user',
    params: id,
    query: query({
      refresh: Type.Optional(Type.String({ minLength: 1, pattern: '\\S', description: '1 = query the provider now' })),
    }),
    responses: {
      200: answer({
        order,
        payment: as<Static<typeof PaymentAction> | null>({ oneOf: [action, { type: 'null' }] }),
      }),
    },
  },
  cancelOrder: {
    method: 'POST',
    path: '/console/api/orders/:id/cancel',
    summary: 'Cancel a pending order (closed upstream where possible; idempotent)',
    auth: 'user',
    params: id,
    responses: { 200: answer({ order }) },
  },
  redeem: {
    method: 'POST',
    path: '/console/api/redeem',
    summary: 'Redeem a code',
    auth: 'user',
    body: body({ code: text(64) }),
    responses: {
      200: answer({
        code: rStr,
        kind,
        id: rStr,
        tokens: rTokens,
        balance: orNull(rTokens),
        plan_ends_at: orNull(rTime),
      }),
    },
  },
});
