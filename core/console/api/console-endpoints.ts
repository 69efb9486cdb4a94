// The console API as data: every /console/api route with its method, auth and body, for the OpenAPI
// document (core/console/openapi.ts). A test checks that this list and the mounted routes agree. Routes move
// from LEGACY_ENDPOINTS into core/console/contract/ one resource at a time; this list then shrinks away.
import type { ErrorCode } from '../../http/errors.js';
import { CONSOLE_ROUTES } from '../contract/index.js';
import { ACCOUNT_ENDPOINTS } from './account-endpoints.js';
import { ADMIN_INSIGHT_ENDPOINTS } from './admin-insight-endpoints.js';
import {
  type ConsoleEndpoint,
  callFilters,
  csvLocaleQuery,
  int,
  login,
  nullable,
  obj,
  pageOf,
  type Schema,
  signUp,
  text,
  upTo,
} from './endpoint-schemas.js';
import { notificationEndpoints } from './notification-endpoints.js';
import { ORDER_BODY, PAYMENT_ENDPOINTS } from './payment-endpoints.js';

export type { ConsoleEndpoint } from './endpoint-schemas.js';

type Props = Record<string, Record<string, unknown>>;

/** A route definition in the shape of this list: query parameters as a list, their descriptions beside them. */
function endpointOf(d: (typeof CONSOLE_ROUTES)[number]): ConsoleEndpoint {
  const query = Object.entries(((d.query as { properties?: Props } | undefined)?.properties ?? {}) as Props).map(
    ([name, { description, ...schema }]) => ({ name, description: String(description ?? ''), schema }),
  );
  return {
    id: d.id,
    method: d.method,
    path: d.path,
    summary: d.summary,
    auth: d.auth,
    ...(d.body ? { body: d.body as Schema } : {}),
    ...(query.length ? { query } : {}),
    status: Number(Object.keys(d.responses)[0] ?? 200),
    ...(d.produces ? { produces: d.produces } : {}),
    ...(d.errors ? { errors: [...d.errors] as ErrorCode[] } : {}),
    ...(d.links ? { links: d.links } : {}),
    responses: d.responses as Record<string, Schema>,
  };
}

/** Routes still mounted the old way (route modules through guardedRouter); the rest are core/console/contract/. */
export const LEGACY_ENDPOINTS: ConsoleEndpoint[] = [
  ...ACCOUNT_ENDPOINTS,
  ...PAYMENT_ENDPOINTS,
  ...ADMIN_INSIGHT_ENDPOINTS,
  {
    id: 'register',
    errors: ['REGISTRATION_CLOSED', 'EMAIL_DOMAIN_NOT_ALLOWED', 'EMAIL_NOT_VERIFIED'],
    method: 'POST',
    path: '/console/api/register',
    summary:
      'Create an account and log in (an existing email with its password logs in; 429 beyond the per-IP sign-up budget)',
    auth: 'none',
    body: signUp,
    status: 201,
  },
  {
    id: 'login',
    errors: ['INVALID_CREDENTIALS', 'EMAIL_NOT_VERIFIED'],
    method: 'POST',
    path: '/console/api/login',
    summary: 'Log in for a user token (429 with Retry-After while throttled)',
    auth: 'none',
    body: login,
  },
  { id: 'logout', method: 'POST', path: '/console/api/logout', summary: 'Revoke this user token', auth: 'user' },

  {
    id: 'usage',
    method: 'GET',
    path: '/console/api/usage',
    summary: 'Usage per day and per operation',
    auth: 'user',
    query: [
      { name: 'days', description: '1-366, default 30', schema: upTo(366) },
      { name: 'key_id', description: 'one API key (its id)', schema: int },
    ],
  },
  { id: 'calls', method: 'GET', path: '/console/api/calls', summary: 'Call log', auth: 'user', query: callFilters },
  {
    id: 'callsCsv',
    method: 'GET',
    path: '/console/api/calls.csv',
    summary:
      'Call log as CSV, streamed: at most 92 days (default: the last 92) and 100,000 rows per export, one export at a time, 3 in a burst then 2 per minute',
    auth: 'user',
    query: [
      ...callFilters.filter((q) => q.name !== 'limit'),
      {
        name: 'limit',
        description: 'rows, 1-100000 (default 100000)',
        schema: { type: 'integer', minimum: 1, maximum: 100000 },
      },
      ...csvLocaleQuery,
    ],
    produces: 'text/csv',
  },
  {
    id: 'ledger',
    method: 'GET',
    path: '/console/api/ledger',
    summary: 'Ledger entries',
    auth: 'user',
    query: pageOf(500),
  },
  {
    id: 'listOrders',
    method: 'GET',
    path: '/console/api/orders',
    summary: 'My orders',
    auth: 'user',
    query: pageOf(200),
  },
  {
    id: 'createOrder',
    errors: ['UNAVAILABLE'],
    method: 'POST',
    path: '/console/api/orders',
    summary: 'Order a plan or package (200 with reused: true when the same open order is reopened)',
    auth: 'user',
    body: ORDER_BODY,
    status: 201,
  },
  {
    id: 'redeem',
    method: 'POST',
    path: '/console/api/redeem',
    summary: 'Redeem a code',
    auth: 'user',
    body: obj({ code: text(64) }, ['code']),
  },
  {
    id: 'adminCreateRedeemCodes',
    method: 'POST',
    path: '/console/api/admin/redeem-codes',
    summary: 'Make a batch of redeem codes',
    auth: 'admin',
    body: obj(
      {
        kind: { enum: ['plan', 'package'] },
        id: text(100),
        count: { type: 'integer', minimum: 1, maximum: 1000 },
        expires_at: nullable({ type: 'string', format: 'date-time' }),
      },
      ['kind', 'id', 'count'],
    ),
    status: 201,
  },
  {
    id: 'adminRedeemBatches',
    method: 'GET',
    path: '/console/api/admin/redeem-codes',
    summary: 'Redeem-code batches',
    auth: 'admin',
  },
  ...notificationEndpoints(),
  {
    id: 'adminRedeemCsv',
    method: 'GET',
    path: '/console/api/admin/redeem-codes/:batch.csv',
    summary: 'A batch of codes as CSV',
    auth: 'admin',
    query: csvLocaleQuery,
    produces: 'text/csv',
  },
];

/** Every console route: the legacy list and the defined ones. */
export const CONSOLE_ENDPOINTS: ConsoleEndpoint[] = [...LEGACY_ENDPOINTS, ...CONSOLE_ROUTES.map(endpointOf)];
