// The console API as data: every /console/api route with its method, auth and body, for the OpenAPI
// document (core/console/openapi.ts). A test checks that this list and the mounted routes agree. Routes move
// from LEGACY_ENDPOINTS into core/console/contract/ one resource at a time; this list then shrinks away.
import type { ErrorCode } from '../../http/errors.js';
import { CONSOLE_ROUTES } from '../contract/index.js';
import { ACCOUNT_ENDPOINTS } from './account-endpoints.js';
import { ADMIN_INSIGHT_ENDPOINTS } from './admin-insight-endpoints.js';
import {
  type ConsoleEndpoint,
  currencyAmount,
  obj,
  pageOf,
  type Schema,
  text,
  tokens,
  upTo,
} from './endpoint-schemas.js';
import { notificationEndpoints } from './notification-endpoints.js';

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
  ...ADMIN_INSIGHT_ENDPOINTS,
  {
    id: 'adminUsers',
    method: 'GET',
    path: '/console/api/admin/users',
    summary: 'List or search users',
    auth: 'admin',
    query: [
      { name: 'q', description: 'email contains, key prefix (sk_...) or user id' },
      { name: 'limit', description: 'page size, 1-500', schema: upTo(500) },
    ],
  },
  { id: 'adminUser', method: 'GET', path: '/console/api/admin/users/:id', summary: 'One user', auth: 'admin' },
  {
    id: 'adminUpdateUser',
    method: 'PATCH',
    path: '/console/api/admin/users/:id',
    summary: 'Disable or enable a user',
    auth: 'admin',
    body: obj({ status: { enum: ['active', 'disabled'] } }, ['status']),
  },
  {
    id: 'adminGrant',
    method: 'POST',
    path: '/console/api/admin/grants',
    summary: 'Grant (or deduct, negative) TOKEN',
    auth: 'admin',
    body: obj(
      {
        email: text(254),
        amount: { ...tokens, 'x-rule': `not 0; ${tokens['x-rule']}` },
        reason: text(500),
      },
      ['email', 'amount', 'reason'],
    ),
    status: 201,
  },
  {
    id: 'adminPendingCount',
    method: 'GET',
    path: '/console/api/admin/orders/pending-count',
    summary: 'How many manual orders wait for an admin to confirm the payment (the admin badge)',
    auth: 'admin',
  },
  {
    id: 'adminOrders',
    method: 'GET',
    path: '/console/api/admin/orders',
    summary: 'All orders',
    auth: 'admin',
    query: [
      {
        name: 'status',
        description: 'pending, paid, cancelled, expired, refunded or amount_mismatch',
        schema: { type: 'string', enum: ['pending', 'paid', 'cancelled', 'expired', 'refunded', 'amount_mismatch'] },
      },
      { name: 'q', description: 'order number (#123), email contains, or key prefix (sk_...)' },
      ...pageOf(500),
    ],
  },
  {
    id: 'adminConfirmOrder',
    method: 'POST',
    path: '/console/api/admin/orders/:id/confirm',
    summary: 'Confirm payment and fulfil (idempotent); an amount_mismatch order needs paid_amount',
    auth: 'admin',
    body: obj({
      paid_amount: currencyAmount(
        "amount_mismatch orders only: what the buyer really paid, in the order's currency, at most 2 decimals",
      ),
    }),
  },
  {
    id: 'adminStats',
    method: 'GET',
    path: '/console/api/admin/stats',
    summary: 'Calls, revenue and top operations per day',
    auth: 'admin',
    query: [{ name: 'days', description: '1-366, default 7', schema: upTo(366) }],
  },
  ...notificationEndpoints(),
];

/** Every console route: the legacy list and the defined ones. */
export const CONSOLE_ENDPOINTS: ConsoleEndpoint[] = [...LEGACY_ENDPOINTS, ...CONSOLE_ROUTES.map(endpointOf)];
