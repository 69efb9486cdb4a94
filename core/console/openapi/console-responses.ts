// What every console route answers on success, as JSON Schema for the OpenAPI document and the contract test
// (test/console/openapi-contract.test.ts checks real answers against these). Console answers are plain JSON
// objects (errors are the Failure envelope). Shared shapes are components (core/console/contract/components.ts);
// the keys listed are always present. Objects stay open to new keys: a console client must ignore what it does not know.

type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const bool: Schema = { type: 'boolean' };
const tokens: Schema = { type: 'number', description: 'TOKEN' };
const time: Schema = { type: 'string', format: 'date-time' };
const orNull = (s: Schema): Schema => ({ ...s, type: [s.type as string, 'null'] });
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const list = (item: Schema): Schema => ({ type: 'array', items: item });
const nextBefore: Schema = {
  type: ['integer', 'null'],
  description: 'id cursor for the next page (before=); null on the last page',
};
/** An object whose listed keys are all present. */
const o = (properties: Record<string, Schema>, optional: string[] = []): Schema => ({
  type: 'object',
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  properties,
});

/** Admin revenue: counts, the TOKEN value sold, and money per currency code in major units (yuan, dollars). */
const perCurrency: Schema = {
  type: 'object',
  additionalProperties: { type: 'number' },
  description: 'currency code -> amount in major units',
};
const revenueSums = o({
  orders: int,
  plans: int,
  packages: int,
  value: tokens,
  paid: perCurrency,
  refunded: perCurrency,
});
const ms: Schema = { type: 'number', description: 'milliseconds, nearest-rank percentile' };

const adjustment = o({ user_id: int, email: str, amount: tokens, balance: tokens, ref: str });

/** By endpoint id (core/console/api/console-endpoints.ts: the routes not yet defined in core/console/contract/); a test checks every endpoint has one. */
export const CONSOLE_RESPONSES: Record<string, Schema> = {
  adminResetPassword: o(
    {
      reset: { const: true },
      signed_out_sessions: int,
      password: { type: 'string', description: 'only when the server chose it' },
    },
    ['password'],
  ),
  adminDisable2fa: o({ enabled: { const: false } }),
  adminMail: o({ transport: str, items: list({ type: 'object' }), next_before: nextBefore }),
  adminMailTest: o({ sent: { const: true }, transport: str, id: { type: ['string', 'integer', 'null'] } }),
  adminRevenue: o({ days: list({ allOf: [o({ day: str }), revenueSums] }), totals: revenueSums }),
  adminOperationHealth: o({
    hours: int,
    since: time,
    operations: list(
      o({
        operation: str,
        calls: int,
        successes: int,
        errors: int,
        success_rate: { type: 'number', minimum: 0, maximum: 1 },
        p50_ms: ms,
        p95_ms: ms,
        p99_ms: ms,
      }),
    ),
  }),
  adminMargin: o({
    days: int,
    rows: list(
      o({
        day: str,
        operation: str,
        upstream: orNull(str),
        calls: int,
        revenue: { type: 'number' },
        cost: { type: 'number' },
        canary_cost: { type: 'number', description: "upstream cost of the canary's probes (not counted as calls)" },
        margin: { type: 'number', description: 'revenue - cost - canary_cost' },
      }),
    ),
  }),
  adminCancelOrder: o({ order: { allOf: [ref('PaymentOrder'), o({ user_email: orNull(str) })] } }),
  adminUsers: o({ users: list(ref('UserWithBalance')) }),
  adminUser: o({ user: ref('UserWithBalance') }),
  adminUpdateUser: o({ user: ref('UserWithBalance') }),
  adminGrant: adjustment,
  adminPendingCount: o({ count: int }),
  adminOrders: o({ orders: list({ allOf: [ref('PaymentOrder'), o({ user_email: orNull(str) })] }) }),
  adminConfirmOrder: o({ order: { oneOf: [ref('PaymentOrder'), { type: 'null' }] }, fulfilled: bool }),
  adminStats: o({
    users: { type: 'integer', description: 'accounts in all' },
    totals: o({ calls: int, successes: int, revenue: tokens }),
    days: list({ type: 'object' }),
  }),
  adminUserOverview: o({
    user: ref('UserWithBalance'),
    keys: list(ref('ApiKey')),
    calls: list(ref('Call')),
    ledger: list(ref('LedgerEntry')),
    orders: list(ref('Order')),
    subscriptions: list({ type: 'object' }),
    audit: list({ type: 'object' }),
  }),
  adminAdjust: o({ user_id: int, kind: { enum: ['refund', 'debit'] }, amount: tokens, balance: tokens, ref: str }),
  adminAudit: o({ entries: list({ type: 'object' }), next_before: nextBefore }),
};
