// The console API as data: every /console/api route with its method, auth and body, for the OpenAPI
// document (core/console/openapi.ts). A test checks that this list and the mounted routes agree.
type Schema = Record<string, unknown>;

export interface ConsoleEndpoint {
  id: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  summary: string;
  auth: 'none' | 'user' | 'admin';
  body?: Schema;
  query?: Array<{ name: string; description: string; schema?: Schema }>;
  status?: number;
  produces?: 'application/json' | 'text/csv';
}

const str = { type: 'string' };
const int = { type: 'integer' };
const tokens = { type: ['number', 'string'], description: 'TOKEN amount, at most 6 decimals' };
const nullable = (s: Schema): Schema => ({ oneOf: [s, { type: 'null' }] });
const obj = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  type: 'object',
  additionalProperties: false,
  properties,
  ...(required.length ? { required } : {}),
});

const credentials = obj({ email: { type: 'string', format: 'email' }, password: { type: 'string', minLength: 8 } }, ['email', 'password']);
const keyLimits = {
  allowed_codes: nullable({ type: 'array', items: str, minItems: 1 }),
  ip_allow: nullable({ type: 'array', items: { type: 'string', description: 'IP address or CIDR block' }, minItems: 1 }),
  expires_at: nullable({ type: 'string', format: 'date-time' }),
  rate_limit_per_sec: nullable({ type: 'integer', minimum: 1 }),
  rate_limit_burst: nullable({ type: 'integer', minimum: 1 }),
  max_concurrency: nullable({ type: 'integer', minimum: 1 }),
  daily_spend_cap: nullable(tokens),
};
const item = obj({ kind: { enum: ['plan', 'package'] }, id: str }, ['kind', 'id']);
const page = [
  { name: 'limit', description: 'page size', schema: int },
  { name: 'before', description: 'id cursor: next_before of the previous page', schema: int },
];
const callFilters = [
  { name: 'code', description: 'operation code' },
  { name: 'status', description: 'success, error or an HTTP status' },
  { name: 'from', description: 'ISO date/time or epoch ms (inclusive)' },
  { name: 'to', description: 'ISO date/time or epoch ms (exclusive)' },
  ...page,
];

export const CONSOLE_ENDPOINTS: ConsoleEndpoint[] = [
  { id: 'register', method: 'POST', path: '/console/api/register', summary: 'Create an account and log in', auth: 'none', body: credentials, status: 201 },
  { id: 'login', method: 'POST', path: '/console/api/login', summary: 'Log in for a user token', auth: 'none', body: credentials },
  { id: 'logout', method: 'POST', path: '/console/api/logout', summary: 'Revoke this user token', auth: 'user' },
  { id: 'me', method: 'GET', path: '/console/api/me', summary: 'User, balance, plan and quota', auth: 'user' },
  { id: 'listKeys', method: 'GET', path: '/console/api/keys', summary: 'List API keys', auth: 'user' },
  { id: 'createKey', method: 'POST', path: '/console/api/keys', summary: 'Create an API key (secret shown once)', auth: 'user', body: obj({ name: str, ...keyLimits }), status: 201 },
  { id: 'updateKey', method: 'PATCH', path: '/console/api/keys/:id', summary: 'Rename, disable/enable or change limits', auth: 'user', body: obj({ name: str, disabled: { type: 'boolean' }, ...keyLimits }) },
  { id: 'deleteKey', method: 'DELETE', path: '/console/api/keys/:id', summary: 'Delete an API key', auth: 'user' },
  { id: 'operations', method: 'GET', path: '/console/api/operations', summary: 'Operation catalogue', auth: 'none' },
  { id: 'plans', method: 'GET', path: '/console/api/plans', summary: 'Subscription plans', auth: 'none' },
  { id: 'packages', method: 'GET', path: '/console/api/packages', summary: 'TOKEN packages', auth: 'none' },
  { id: 'usage', method: 'GET', path: '/console/api/usage', summary: 'Usage per day and per operation', auth: 'user', query: [{ name: 'days', description: '1-366, default 30', schema: int }] },
  { id: 'calls', method: 'GET', path: '/console/api/calls', summary: 'Call log', auth: 'user', query: callFilters },
  { id: 'callsCsv', method: 'GET', path: '/console/api/calls.csv', summary: 'Call log as CSV', auth: 'user', query: callFilters, produces: 'text/csv' },
  { id: 'ledger', method: 'GET', path: '/console/api/ledger', summary: 'Ledger entries', auth: 'user', query: page },
  { id: 'listOrders', method: 'GET', path: '/console/api/orders', summary: 'My orders', auth: 'user', query: page },
  { id: 'createOrder', method: 'POST', path: '/console/api/orders', summary: 'Order a plan or package', auth: 'user', body: item, status: 201 },
  { id: 'redeem', method: 'POST', path: '/console/api/redeem', summary: 'Redeem a code', auth: 'user', body: obj({ code: str }, ['code']) },
  { id: 'adminUsers', method: 'GET', path: '/console/api/admin/users', summary: 'List or search users', auth: 'admin', query: [{ name: 'q', description: 'email contains' }, { name: 'limit', description: 'page size', schema: int }] },
  { id: 'adminUser', method: 'GET', path: '/console/api/admin/users/:id', summary: 'One user', auth: 'admin' },
  { id: 'adminUpdateUser', method: 'PATCH', path: '/console/api/admin/users/:id', summary: 'Disable or enable a user', auth: 'admin', body: obj({ status: { enum: ['active', 'disabled'] } }, ['status']) },
  { id: 'adminGrant', method: 'POST', path: '/console/api/admin/grants', summary: 'Grant (or deduct, negative) TOKEN', auth: 'admin', body: obj({ email: str, amount: tokens, reason: str }, ['email', 'amount', 'reason']), status: 201 },
  { id: 'adminOrders', method: 'GET', path: '/console/api/admin/orders', summary: 'All orders', auth: 'admin', query: [{ name: 'status', description: 'pending, paid or cancelled' }, ...page] },
  { id: 'adminConfirmOrder', method: 'POST', path: '/console/api/admin/orders/:id/confirm', summary: 'Confirm payment and fulfil (idempotent)', auth: 'admin' },
  { id: 'adminStats', method: 'GET', path: '/console/api/admin/stats', summary: 'Calls, revenue and top operations per day', auth: 'admin', query: [{ name: 'days', description: '1-366, default 7', schema: int }] },
  { id: 'adminCreateRedeemCodes', method: 'POST', path: '/console/api/admin/redeem-codes', summary: 'Make a batch of redeem codes', auth: 'admin', body: obj({ kind: { enum: ['plan', 'package'] }, id: str, count: { type: 'integer', minimum: 1, maximum: 1000 }, expires_at: nullable({ type: 'string', format: 'date-time' }) }, ['kind', 'id', 'count']), status: 201 },
  { id: 'adminRedeemBatches', method: 'GET', path: '/console/api/admin/redeem-codes', summary: 'Redeem-code batches', auth: 'admin' },
  { id: 'adminRedeemCsv', method: 'GET', path: '/console/api/admin/redeem-codes/:batch.csv', summary: 'A batch of codes as CSV', auth: 'admin', produces: 'text/csv' },
];
