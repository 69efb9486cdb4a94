// Payment endpoints (docs/billing.md "Payments") as data for the OpenAPI document; spread into CONSOLE_ENDPOINTS.
import { type ConsoleEndpoint, currencyAmount } from './endpoint-schemas.js';

type Schema = Record<string, unknown>;
/** A string the handler reads with reqString: not blank. */
const str = { type: 'string', minLength: 1, pattern: '\\S' };
/** The same, at most `maxLength` characters (the handler's limit). */
const text = (maxLength: number) => ({ ...str, maxLength });
const obj = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  type: 'object',
  additionalProperties: false,
  properties,
  ...(required.length ? { required } : {}),
});

/** POST /console/api/orders: the item, and optionally the payment instance and its channel. */
export const ORDER_BODY = obj(
  {
    kind: { enum: ['plan', 'package'] },
    id: text(100),
    method: {
      ...text(32),
      type: ['string', 'null'],
      description: 'payment instance id from GET /console/api/payment-methods (default: the first)',
      'x-rule': 'an instance id of GET /console/api/payment-methods',
    },
    channel: {
      ...text(32),
      type: ['string', 'null'],
      description: "the instance's method, e.g. alipay/wxpay for EPay, page/qr for Alipay",
      'x-rule': "one of the instance's channels",
    },
  },
  ['kind', 'id'],
);

export const PAYMENT_ENDPOINTS: ConsoleEndpoint[] = [
  {
    id: 'paymentMethods',
    method: 'GET',
    path: '/console/api/payment-methods',
    summary: 'Payment instances a buyer can choose, with their channels and currency',
    auth: 'user',
  },
  {
    id: 'getOrder',
    method: 'GET',
    path: '/console/api/orders/:id',
    summary:
      'One order and, while pending, its pay action (redirect, form, QR code as SVG, or instructions); refresh=1 asks the provider (at most every 10 s)',
    auth: 'user',
    query: [{ name: 'refresh', description: '1 = query the provider now', schema: str }],
  },
  {
    id: 'cancelOrder',
    method: 'POST',
    path: '/console/api/orders/:id/cancel',
    summary: 'Cancel a pending order (closed upstream where possible; idempotent)',
    auth: 'user',
  },
  {
    id: 'adminPaymentSummary',
    method: 'GET',
    path: '/console/api/admin/payments/summary',
    summary: 'Pending and amount-mismatch counts, and each payment instance with its notify URL and last notification',
    auth: 'admin',
  },
  {
    id: 'adminPaymentLog',
    method: 'GET',
    path: '/console/api/admin/payments/log',
    summary: 'Every raw payment notification, query answer and admin action, newest first',
    auth: 'admin',
    query: [
      {
        name: 'order',
        description: 'one order',
        schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
      },
      { name: 'instance', description: 'one payment instance', schema: str },
      { name: 'limit', description: 'page size, 1-500', schema: { type: 'integer', minimum: 1, maximum: 500 } },
      {
        name: 'before',
        description: 'id cursor',
        schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
      },
    ],
  },
  {
    id: 'adminSyncOrder',
    method: 'POST',
    path: '/console/api/admin/orders/:id/sync',
    summary: "Query the order's payment provider now and settle the answer",
    auth: 'admin',
  },
  {
    id: 'adminRefundOrder',
    errors: ['UPSTREAM_FAILED'],
    method: 'POST',
    path: '/console/api/admin/orders/:id/refund',
    summary:
      'Refund a paid order (whole or part): TOKEN back first (never below zero), then the provider; a full plan refund ends the plan',
    auth: 'admin',
    body: obj(
      {
        amount: currencyAmount("in the order's currency, at most 2 decimals; default: the rest"),
        reason: text(500),
        via_provider: { type: 'boolean' },
      },
      ['reason'],
    ),
  },
];
