// What an operator needs to run payments: instances with their health and the pending-order badge, the payment
// log, a provider query on demand, refunds, and batches of single-use redeem codes (with their CSV export, to print
// or hand to a reseller).
import { Bilingual, PaymentOrder } from './components.js';
import { csvLocaleQuery } from './csv.js';
import { defineRoutes } from './define.js';
import {
  answer,
  as,
  body,
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
  rTime,
  rTokens,
  type Static,
  Type,
  text,
  upTo,
} from './schema.js';

const order = ref('PaymentOrder', PaymentOrder);
const id = params({ id: pathId('order') });
const kind = oneOf(['plan', 'package']);

/** One row of the payment log (core/billing/payments/payment-log.ts), as received. */
const PaymentLogEntry = answer({
  id: rInt,
  instance: rStr,
  order_id: orNull(rInt),
  source: oneOf(['notify', 'query', 'admin'], {
    description: "notify: the provider's notification; query: our query's answer; admin: an operator's action",
  }),
  http_method: orNull(Type.String({ description: 'of a notification' })),
  client_ip: orNull(Type.String({ description: "a notification's sender" })),
  verified: Type.Boolean({ description: 'the signature (or query) checked out' }),
  state: orNull(rStr),
  outcome: rStr,
  event_id: orNull(rStr),
  raw: orNull(Type.String({ description: 'the body as received, at most 16 KiB' })),
  created_at: rTime,
});

export const ADMIN_PAYMENTS = defineRoutes({
  adminPaymentSummary: {
    method: 'GET',
    path: '/console/api/admin/payments/summary',
    summary: 'Pending and amount-mismatch counts, and each payment instance with its notify URL and last notification',
    auth: 'admin',
    responses: {
      200: answer({
        pending: rInt,
        amount_mismatch: rInt,
        instances: list(
          answer({
            id: rStr,
            kind: rStr,
            methods: list(rStr),
            currency: rStr,
            label: Bilingual,
            notify_url: orNull(Type.String({ description: 'null for manual payment' })),
            refunds: Type.Boolean({ description: 'the provider refunds on request' }),
            last_notification_at: orNull(rTime),
            last_notification_ok: orNull(Type.Boolean({ description: 'its signature checked out' })),
            last_verified_at: orNull(rTime),
          }),
        ),
      }),
    },
  },
  adminPaymentLog: {
    method: 'GET',
    path: '/console/api/admin/payments/log',
    summary: 'Every raw payment notification, query answer and admin action, newest first',
    auth: 'admin',
    query: query({
      order: idQuery('one order'),
      instance: Type.Optional(Type.String({ minLength: 1, pattern: '\\S', description: 'one payment instance' })),
      limit: upTo(500, 'page size, 1-500 (default 100)'),
      before: idQuery('id cursor: next_before of the previous page'),
    }),
    responses: {
      200: answer({
        entries: list(PaymentLogEntry),
        next_before: as<number | null>({
          type: ['integer', 'null'],
          description:
            'id cursor for the next page (before=); null when this page is not full (a full page may be the last)',
        }),
      }),
    },
  },
  adminSyncOrder: {
    method: 'POST',
    path: '/console/api/admin/orders/:id/sync',
    summary: "Query the order's payment provider now and settle the answer",
    auth: 'admin',
    params: id,
    responses: {
      200: answer({
        state: Type.String({
          description: "the provider's state: paid, pending, failed, closed, refunded, ignored or unknown",
        }),
        outcome: rStr,
        order,
      }),
    },
  },
  adminRefundOrder: {
    method: 'POST',
    path: '/console/api/admin/orders/:id/refund',
    summary:
      'Refund a paid order (whole or part): TOKEN back first (never below zero), then the provider; a full plan refund ends the plan',
    auth: 'admin',
    params: id,
    body: body({
      amount: Type.Optional(currencyAmount("in the order's currency, at most 2 decimals; default: the rest")),
      reason: text(500),
      via_provider: Type.Optional(Type.Boolean()),
    }),
    responses: {
      200: answer({
        order,
        refund_no: rStr,
        amount: Type.Number({ description: "in the order's currency, major units" }),
        tokens: rTokens,
        provider_refunded: rBool,
      }),
    },
    errors: ['UPSTREAM_FAILED'],
  },
  adminCreateRedeemCodes: {
    method: 'POST',
    path: '/console/api/admin/redeem-codes',
    summary: 'Make a batch of redeem codes',
    auth: 'admin',
    body: body({
      kind,
      id: text(100),
      count: Type.Integer({ minimum: 1, maximum: 1000 }),
      expires_at: Type.Optional(
        as<string | null>({ type: ['string', 'null'], format: 'date-time', 'x-rule': 'a real date, in the future' }),
      ),
    }),
    responses: {
      201: answer({
        batch_id: rInt,
        kind,
        id: rStr,
        count: rInt,
        expires_at: orNull(rTime),
        codes: list(rStr),
      }),
    },
    links: {
      redeem: {
        operationId: 'redeem',
        requestBody: { code: '$response.body#/codes/0' },
        description: 'A customer redeems the first code',
      },
      adminRedeemCsv: {
        operationId: 'adminRedeemCsv',
        parameters: { batch: '$response.body#/batch_id' },
        description: 'The batch as CSV',
      },
    },
  },
  adminRedeemBatches: {
    method: 'GET',
    path: '/console/api/admin/redeem-codes',
    summary: 'Redeem-code batches',
    auth: 'admin',
    query: query({ limit: upTo(500, 'batches, 1-500 (default 100)') }),
    responses: {
      200: answer({
        batches: list(
          answer({
            batch_id: rInt,
            kind,
            id: rStr,
            count: rInt,
            redeemed: rInt,
            created_at: orNull(rTime),
            expires_at: orNull(rTime),
          }),
        ),
      }),
    },
  },
  adminRedeemCsv: {
    method: 'GET',
    path: '/console/api/admin/redeem-codes/:batch.csv',
    summary: 'A batch of codes as CSV',
    auth: 'admin',
    params: params({ batch: pathId('redeem-code batch') }),
    query: query(csvLocaleQuery),
    produces: 'text/csv',
    responses: { 200: Type.String({ description: 'RFC 4180 CSV with a header line' }) },
  },
});

export type PaymentLogEntry = Static<typeof PaymentLogEntry>;
