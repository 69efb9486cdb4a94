// /console/api/admin: the operator's view of the business and the server: calls and revenue per day, revenue from
// orders, each operation's health over a window, margin per day, operation and upstream (JSON or CSV), and the
// mail outbox with a test mail to check the SMTP settings.
import { defineRoutes } from './define.js';
import {
  answer,
  as,
  body,
  both,
  constant,
  idQuery,
  list,
  nextBefore,
  oneOf,
  orNull,
  query,
  rInt,
  rNumber,
  rStr,
  rTime,
  rTokens,
  Type,
  text,
  upTo,
} from './schema.js';

/** The longest operation-health window: 31 days, in hours. */
export const MAX_HOURS = 31 * 24;

/** Money per currency code, in major units (yuan, dollars). */
const perCurrency = as<Record<string, number>>({
  type: 'object',
  additionalProperties: { type: 'number' },
  description: 'currency code -> amount in major units',
});
const revenueSums = answer({
  orders: rInt,
  plans: rInt,
  packages: rInt,
  value: rTokens,
  paid: perCurrency,
  refunded: perCurrency,
});
const ms = Type.Number({ description: 'milliseconds, nearest-rank percentile' });
const transport = oneOf(['smtp', 'outbox']);

export const ADMIN_INSIGHT = defineRoutes({
  adminStats: {
    method: 'GET',
    path: '/console/api/admin/stats',
    summary: 'Calls, revenue and top operations per day',
    auth: 'admin',
    query: query({ days: upTo(366, '1-366, default 7') }),
    responses: {
      200: answer({
        users: Type.Integer({ description: 'accounts in all' }),
        totals: answer({ calls: rInt, successes: rInt, revenue: rTokens }),
        days: list(
          answer({
            day: rStr,
            calls: rInt,
            successes: rInt,
            revenue: rTokens,
            top_operations: list(answer({ operation: orNull(rStr), calls: rInt, revenue: rTokens })),
          }),
        ),
      }),
    },
  },
  adminRevenue: {
    method: 'GET',
    path: '/console/api/admin/revenue',
    summary:
      'Revenue from credited orders per China day: plans and packages sold, their TOKEN value, money received and refunded per currency',
    auth: 'admin',
    query: query({ days: upTo(366, '1-366, default 30') }),
    responses: { 200: answer({ days: list(both(answer({ day: rStr }), revenueSums)), totals: revenueSums }) },
  },
  adminOperationHealth: {
    method: 'GET',
    path: '/console/api/admin/operation-health',
    summary: 'Per-operation calls, success rate and p50/p95/p99 latency (ms, nearest rank) over the last hours',
    auth: 'admin',
    query: query({ hours: upTo(MAX_HOURS, `1-${MAX_HOURS}, default 24`) }),
    responses: {
      200: answer({
        hours: rInt,
        since: rTime,
        operations: list(
          answer({
            operation: rStr,
            calls: rInt,
            successes: rInt,
            errors: rInt,
            success_rate: Type.Number({ minimum: 0, maximum: 1 }),
            p50_ms: ms,
            p95_ms: ms,
            p99_ms: ms,
          }),
        ),
      }),
    },
  },
  adminMargin: {
    method: 'GET',
    path: '/console/api/admin/margin',
    summary:
      "Successful calls, revenue, upstream cost (cost_per_call of the upstream that served each call), the canaries' upstream cost (canary_cost: probes are not calls sold) and margin per China day, operation and upstream (TOKEN); format=csv for a CSV file",
    auth: 'admin',
    query: query({
      days: upTo(366, '1-366, default 30'),
      format: Type.Optional(oneOf(['csv'], { type: 'string', description: 'csv for a CSV file' })),
    }),
    produces: 'json+csv',
    responses: {
      200: answer({
        days: rInt,
        rows: list(
          answer({
            day: rStr,
            operation: rStr,
            upstream: orNull(rStr),
            calls: rInt,
            revenue: rNumber,
            cost: rNumber,
            canary_cost: Type.Number({ description: "upstream cost of the canary's probes (not counted as calls)" }),
            margin: Type.Number({ description: 'revenue - cost - canary_cost' }),
          }),
        ),
      }),
    },
  },
  adminMail: {
    method: 'GET',
    path: '/console/api/admin/mail',
    summary: 'Mail outbox: every mail with its transport and outcome',
    auth: 'admin',
    query: query({
      limit: upTo(200, 'page size, 1-200'),
      before: idQuery('id cursor: next_before of the previous page'),
    }),
    responses: {
      200: answer({
        transport,
        items: list(
          answer({
            id: rInt,
            to: rStr,
            subject: rStr,
            text: rStr,
            transport,
            status: oneOf(['queued', 'sent', 'failed']),
            error: orNull(rStr),
            created_at: rTime,
          }),
        ),
        next_before: nextBefore,
      }),
    },
  },
  adminMailTest: {
    method: 'POST',
    path: '/console/api/admin/mail/test',
    summary: 'Send a test mail (502 MAIL_FAILED with the server answer when it fails)',
    auth: 'admin',
    body: body({ to: text(254, { format: 'email', 'x-rule': 'a valid email address' }) }),
    errors: ['MAIL_FAILED'],
    responses: {
      200: answer({
        sent: constant(true),
        transport,
        id: as<string | number | null>({ type: ['string', 'integer', 'null'] }),
      }),
    },
  },
});
