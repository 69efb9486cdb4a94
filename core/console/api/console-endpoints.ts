// The console API as data: every /console/api route with its method, auth and body, for the OpenAPI
// document (core/console/openapi.ts). A test checks that this list and the mounted routes agree.
import { ACCOUNT_ENDPOINTS } from './account-endpoints.js';
import { ORDER_BODY, PAYMENT_ENDPOINTS } from './payment-endpoints.js';
import { ADMIN_INSIGHT_ENDPOINTS } from './admin-insight-endpoints.js';
type Schema = Record<string, unknown>;

export interface ConsoleEndpoint {
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  summary: string;
  auth: 'none' | 'user' | 'admin';
  body?: Schema;
  query?: Array<{ name: string; description: string; schema?: Schema }>;
  status?: number;
  produces?: 'application/json' | 'text/csv';
}

/** A string the handler reads with reqString: not blank. */
const str = { type: 'string', minLength: 1, pattern: '\\S' };
/** The same, at most `maxLength` characters (the handler's limit). */
const text = (maxLength: number) => ({ ...str, maxLength });
/** An id or id cursor in a query: a positive safe integer (queryInt(…, 1, MAX_SAFE_INTEGER)). */
const int = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER };
/** An integer query value from 1 to `max`. */
const upTo = (max: number): Schema => ({ type: 'integer', minimum: 1, maximum: max });
const tokens = { type: ['number', 'string'], description: 'TOKEN amount, at most 6 decimals' };
/** null allowed too; a type union (not oneOf) so a refusal names the field's own rule (request-validation.ts). */
const nullable = (s: Schema): Schema => ({ ...s, type: [...[s.type].flat(), 'null'] });
const obj = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  type: 'object',
  additionalProperties: false,
  properties,
  ...(required.length ? { required } : {}),
});

const email = {
  type: 'string', minLength: 1, maxLength: 254, format: 'email', description: 'normalised: NFKC, trimmed, lower-cased; no control characters',
  'x-error': { maxLength: "'email' is not a valid email address (at most 254 characters)." },
};
const remember = { type: 'boolean', description: '"remember me": true gives a long-lived session (USER_TOKEN_REMEMBER_HOURS, default 30 days) instead of USER_TOKEN_TTL_HOURS' };
/** A new password: 8-200 characters with letters and digits (checked by the handler). */
export const NEW_PASSWORD = {
  type: 'string', minLength: 8, maxLength: 200, description: '8-200 characters, letters and digits',
  'x-error': { minLength: 'Weak password: password must be at least 8 characters.' },
};
const signUp = obj({ email, password: NEW_PASSWORD, locale: { enum: ['zh', 'en'], 'x-error': "'locale' must be zh or en." }, remember }, ['email', 'password']);
// Login takes any password up to 200 characters: a short one is a wrong password (401), not a malformed request.
const login = obj({ email, password: { type: 'string', minLength: 1, maxLength: 200 }, remember }, ['email', 'password']);
/** A list limit: null, or 1-100 non-empty strings (core/console/api/key-limits.ts). */
const codeList = (name: string, item: Schema): Schema => {
  const message = `'${name}' must be null or a list of 1 to 100 non-empty strings.`;
  return nullable({ type: 'array', items: { type: 'string', minLength: 1, pattern: '\\S', ...item, 'x-error': message }, minItems: 1, maxItems: 100, 'x-error': message });
};
const keyLimits = {
  allowed_codes: codeList('allowed_codes', {}),
  ip_allow: codeList('ip_allow', { description: 'IP address or CIDR block' }),
  expires_at: nullable({ type: 'string', format: 'date-time' }),
  rate_limit_per_sec: nullable({ type: 'integer', minimum: 1, maximum: 10_000 }),
  rate_limit_burst: nullable({ type: 'integer', minimum: 1, maximum: 100_000 }),
  max_concurrency: nullable({ type: 'integer', minimum: 1, maximum: 1000 }),
  daily_spend_cap: nullable(tokens),
};
/** limit (1-max) and the id cursor of a paged list; each route has its own maximum page size. */
const pageOf = (max: number) => [
  { name: 'limit', description: `page size, 1-${max}`, schema: upTo(max) },
  { name: 'before', description: 'id cursor: next_before of the previous page', schema: int },
];
const callFilters = [
  { name: 'code', description: 'operation code' },
  { name: 'key_id', description: 'one API key (its id)', schema: int },
  { name: 'status', description: 'success, error or an HTTP status' },
  { name: 'from', description: 'ISO date/time or epoch ms (inclusive)' },
  { name: 'to', description: 'ISO date/time or epoch ms (exclusive)' },
  ...pageOf(500),
];

const EVENTS = ['order.paid', 'balance.low', 'plan.expiring', 'key.expiring'];
const eventsError = `'events' must be a non-empty list of: ${EVENTS.join(', ')}.`;
const webhookEvents = { type: 'array', minItems: 1, items: { enum: EVENTS, 'x-error': eventsError }, 'x-error': eventsError };
const newWebhook = obj(
  {
    url: { ...text(2000), description: 'public http(s) URL; private and reserved addresses are refused' },
    kind: { enum: ['standard', 'wecom', 'dingtalk', 'feishu'], description: 'standard: Standard Webhooks signed JSON (default); the others post a chat-bot text message' },
    events: webhookEvents,
    bot_secret: nullable({ ...text(200), description: 'DingTalk / Feishu bot signing secret' }),
  },
  ['url', 'events'],
);
/** Every CSV export: UTF-8 with a BOM, header labels in `lang`, times as YYYY-MM-DD HH:mm:ss in `tz`. */
const csvLocaleQuery = [
  { name: 'tz', description: 'IANA time zone of the times, e.g. Europe/London (default Asia/Shanghai)', schema: { type: 'string', maxLength: 64 } },
  { name: 'lang', description: 'header language: zh or en (default: Accept-Language, else zh)', schema: { type: 'string', enum: ['zh', 'en'] } },
];
const exportQuery = [
  { name: 'from', description: 'ISO date/time or epoch ms (inclusive)' },
  { name: 'to', description: 'ISO date/time or epoch ms (exclusive)' },
  { name: 'user_id', description: 'one user (orders, ledger)', schema: int },
  { name: 'limit', description: 'rows, 1-1000000', schema: upTo(1_000_000) },
  ...csvLocaleQuery,
];

/** Issue 16 items 5-8: webhooks, alerts, key rotation, admin drill-down, adjustments, audit, exports. */
function notificationEndpoints(): ConsoleEndpoint[] {
  const hooks = (prefix: string, idp: string, auth: 'user' | 'admin', who: string): ConsoleEndpoint[] => [
    { id: `${idp}Webhooks`, method: 'GET', path: prefix, summary: `${who} webhooks`, auth },
    { id: `${idp}CreateWebhook`, method: 'POST', path: prefix, summary: `Add a ${who.toLowerCase()} webhook (signing secret shown once)`, auth, body: newWebhook, status: 201 },
    { id: `${idp}UpdateWebhook`, method: 'PATCH', path: `${prefix}/:id`, summary: 'Enable or disable a webhook', auth, body: obj({ status: { enum: ['active', 'disabled'] } }, ['status']) },
    { id: `${idp}DeleteWebhook`, method: 'DELETE', path: `${prefix}/:id`, summary: 'Delete a webhook and its queued deliveries', auth },
    { id: `${idp}WebhookDeliveries`, method: 'GET', path: `${prefix}/:id/deliveries`, summary: 'Delivery log, newest first', auth, query: pageOf(200) },
    { id: `${idp}ReplayDelivery`, method: 'POST', path: `${prefix}/:id/deliveries/:delivery/replay`, summary: 'Send a delivery again (same message id)', auth, status: 202 },
  ];
  return [
    ...hooks('/console/api/webhooks', 'my', 'user', 'My'),
    ...hooks('/console/api/admin/webhooks', 'operator', 'admin', 'Operator'),
    { id: 'alerts', method: 'GET', path: '/console/api/alerts', summary: 'Low-balance alert settings', auth: 'user' },
    { id: 'setAlerts', method: 'PUT', path: '/console/api/alerts', summary: 'Set the low-balance line (TOKEN), quota percentage and mail switch', auth: 'user', body: obj({ balance_threshold: nullable(tokens), quota_percent: nullable({ type: 'integer', minimum: 1, maximum: 99 }), email: { type: 'boolean' } }) },
    { id: 'rotateKey', method: 'POST', path: '/console/api/keys/:id/rotate', summary: 'New secret for the same key; the old one works for grace_hours (default 24)', auth: 'user', body: obj({ grace_hours: { type: 'integer', minimum: 0, maximum: 720 } }) },
    { id: 'adminUserOverview', method: 'GET', path: '/console/api/admin/users/:id/overview', summary: 'One user: keys, recent calls, ledger, orders, plans and audit', auth: 'admin' },
    { id: 'adminAdjust', method: 'POST', path: '/console/api/admin/users/:id/adjustments', summary: 'Refund or debit with a reason (never below the available balance)', auth: 'admin', body: obj({ kind: { enum: ['refund', 'debit'] }, amount: tokens, reason: text(500) }, ['kind', 'amount', 'reason']), status: 201 },
    { id: 'adminAudit', method: 'GET', path: '/console/api/admin/audit', summary: 'Audit log, newest first', auth: 'admin', query: [{ name: 'user_id', description: 'the account concerned', schema: int }, { name: 'q', description: 'the accounts concerned: email contains, key prefix (sk_...) or user id' }, { name: 'actor_id', description: 'who did it', schema: int }, { name: 'action', description: 'e.g. key.rotate' }, ...pageOf(500)] },
    ...(['users', 'orders', 'ledger'] as const).map((t): ConsoleEndpoint => ({ id: `adminExport_${t}`, method: 'GET', path: `/console/api/admin/exports/${t}.csv`, summary: `All ${t} as streamed CSV, newest first`, auth: 'admin', query: exportQuery, produces: 'text/csv' })),
  ];
}

export const CONSOLE_ENDPOINTS: ConsoleEndpoint[] = [
  ...ACCOUNT_ENDPOINTS,
  ...PAYMENT_ENDPOINTS,
  ...ADMIN_INSIGHT_ENDPOINTS,
  { id: 'register', method: 'POST', path: '/console/api/register', summary: 'Create an account and log in (an existing email with its password logs in; 429 beyond the per-IP sign-up budget)', auth: 'none', body: signUp, status: 201 },
  { id: 'login', method: 'POST', path: '/console/api/login', summary: 'Log in for a user token (429 with Retry-After while throttled)', auth: 'none', body: login },
  { id: 'logout', method: 'POST', path: '/console/api/logout', summary: 'Revoke this user token', auth: 'user' },
  { id: 'me', method: 'GET', path: '/console/api/me', summary: 'User, balance, plan and quota', auth: 'user' },
  { id: 'listKeys', method: 'GET', path: '/console/api/keys', summary: 'List API keys', auth: 'user' },
  { id: 'createKey', method: 'POST', path: '/console/api/keys', summary: 'Create an API key (secret shown once)', auth: 'user', body: obj({ name: text(64), ...keyLimits }), status: 201 },
  { id: 'updateKey', method: 'PATCH', path: '/console/api/keys/:id', summary: 'Rename, disable/enable or change limits', auth: 'user', body: obj({ name: text(64), disabled: { type: 'boolean' }, ...keyLimits }) },
  { id: 'deleteKey', method: 'DELETE', path: '/console/api/keys/:id', summary: 'Delete an API key', auth: 'user' },
  { id: 'operations', method: 'GET', path: '/console/api/operations', summary: 'Operation catalogue', auth: 'none' },
  { id: 'plans', method: 'GET', path: '/console/api/plans', summary: 'Subscription plans', auth: 'none' },
  { id: 'packages', method: 'GET', path: '/console/api/packages', summary: 'TOKEN packages', auth: 'none' },
  { id: 'adminOperations', method: 'GET', path: '/console/api/admin/operations', summary: 'Operations with availability; for an unavailable one, the settings (env variables) that would make it available', auth: 'admin' },
  { id: 'usage', method: 'GET', path: '/console/api/usage', summary: 'Usage per day and per operation', auth: 'user', query: [{ name: 'days', description: '1-366, default 30', schema: upTo(366) }, { name: 'key_id', description: 'one API key (its id)', schema: int }] },
  { id: 'calls', method: 'GET', path: '/console/api/calls', summary: 'Call log', auth: 'user', query: callFilters },
  { id: 'callsCsv', method: 'GET', path: '/console/api/calls.csv', summary: 'Call log as CSV, streamed: at most 92 days (default: the last 92) and 100,000 rows per export, one export at a time, 3 in a burst then 2 per minute', auth: 'user', query: [...callFilters.filter((q) => q.name !== 'limit'), { name: 'limit', description: 'rows, 1-100000 (default 100000)', schema: { type: 'integer', minimum: 1, maximum: 100000 } }, ...csvLocaleQuery], produces: 'text/csv' },
  { id: 'ledger', method: 'GET', path: '/console/api/ledger', summary: 'Ledger entries', auth: 'user', query: pageOf(500) },
  { id: 'listOrders', method: 'GET', path: '/console/api/orders', summary: 'My orders', auth: 'user', query: pageOf(200) },
  { id: 'createOrder', method: 'POST', path: '/console/api/orders', summary: 'Order a plan or package (200 with reused: true when the same open order is reopened)', auth: 'user', body: ORDER_BODY, status: 201 },
  { id: 'redeem', method: 'POST', path: '/console/api/redeem', summary: 'Redeem a code', auth: 'user', body: obj({ code: text(64) }, ['code']) },
  { id: 'adminUsers', method: 'GET', path: '/console/api/admin/users', summary: 'List or search users', auth: 'admin', query: [{ name: 'q', description: 'email contains, key prefix (sk_...) or user id' }, { name: 'limit', description: 'page size, 1-500', schema: upTo(500) }] },
  { id: 'adminUser', method: 'GET', path: '/console/api/admin/users/:id', summary: 'One user', auth: 'admin' },
  { id: 'adminUpdateUser', method: 'PATCH', path: '/console/api/admin/users/:id', summary: 'Disable or enable a user', auth: 'admin', body: obj({ status: { enum: ['active', 'disabled'] } }, ['status']) },
  { id: 'adminGrant', method: 'POST', path: '/console/api/admin/grants', summary: 'Grant (or deduct, negative) TOKEN', auth: 'admin', body: obj({ email: text(254), amount: tokens, reason: text(500) }, ['email', 'amount', 'reason']), status: 201 },
  { id: 'adminOrders', method: 'GET', path: '/console/api/admin/orders', summary: 'All orders', auth: 'admin', query: [{ name: 'status', description: 'pending, paid, cancelled, expired, refunded or amount_mismatch' }, { name: 'q', description: 'order number (#123), email contains, or key prefix (sk_...)' }, ...pageOf(500)] },
  { id: 'adminConfirmOrder', method: 'POST', path: '/console/api/admin/orders/:id/confirm', summary: 'Confirm payment and fulfil (idempotent)', auth: 'admin' },
  { id: 'adminStats', method: 'GET', path: '/console/api/admin/stats', summary: 'Calls, revenue and top operations per day', auth: 'admin', query: [{ name: 'days', description: '1-366, default 7', schema: upTo(366) }] },
  { id: 'adminCreateRedeemCodes', method: 'POST', path: '/console/api/admin/redeem-codes', summary: 'Make a batch of redeem codes', auth: 'admin', body: obj({ kind: { enum: ['plan', 'package'] }, id: text(100), count: { type: 'integer', minimum: 1, maximum: 1000 }, expires_at: nullable({ type: 'string', format: 'date-time' }) }, ['kind', 'id', 'count']), status: 201 },
  { id: 'adminRedeemBatches', method: 'GET', path: '/console/api/admin/redeem-codes', summary: 'Redeem-code batches', auth: 'admin' },
  ...notificationEndpoints(),
  { id: 'adminRedeemCsv', method: 'GET', path: '/console/api/admin/redeem-codes/:batch.csv', summary: 'A batch of codes as CSV', auth: 'admin', query: csvLocaleQuery, produces: 'text/csv' },
];
