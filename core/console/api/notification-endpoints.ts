// The console routes of notifications and operator records (webhooks, admin drill-down, adjustments, audit,
// exports) as data, for the OpenAPI document and request validation.
import {
  type ConsoleEndpoint,
  exportQuery,
  int,
  newWebhook,
  obj,
  pageOf,
  positiveTokens,
  text,
} from './endpoint-schemas.js';

const ADJUST_NOT_POSITIVE = "'amount' must be a positive TOKEN amount; 'kind' says whether it is a refund or a debit.";

/** Notifications and operator records: webhooks, alerts, key rotation, admin drill-down, adjustments, audit, CSV. */
export function notificationEndpoints(): ConsoleEndpoint[] {
  const hooks = (prefix: string, idp: string, auth: 'user' | 'admin', who: string): ConsoleEndpoint[] => [
    { id: `${idp}Webhooks`, method: 'GET', path: prefix, summary: `${who} webhooks`, auth },
    {
      id: `${idp}CreateWebhook`,
      method: 'POST',
      path: prefix,
      summary: `Add a ${who.toLowerCase()} webhook (signing secret shown once)`,
      auth,
      body: newWebhook,
      status: 201,
    },
    {
      id: `${idp}UpdateWebhook`,
      method: 'PATCH',
      path: `${prefix}/:id`,
      summary: 'Enable or disable a webhook',
      auth,
      body: obj({ status: { enum: ['active', 'disabled'] } }, ['status']),
    },
    {
      id: `${idp}DeleteWebhook`,
      method: 'DELETE',
      path: `${prefix}/:id`,
      summary: 'Delete a webhook and its queued deliveries',
      auth,
    },
    {
      id: `${idp}WebhookDeliveries`,
      method: 'GET',
      path: `${prefix}/:id/deliveries`,
      summary: 'Delivery log, newest first',
      auth,
      query: pageOf(200),
    },
    {
      id: `${idp}ReplayDelivery`,
      method: 'POST',
      path: `${prefix}/:id/deliveries/:delivery/replay`,
      summary: 'Send a delivery again (same message id)',
      auth,
      status: 202,
    },
  ];
  return [
    ...hooks('/console/api/webhooks', 'my', 'user', 'My'),
    ...hooks('/console/api/admin/webhooks', 'operator', 'admin', 'Operator'),
    {
      id: 'adminUserOverview',
      method: 'GET',
      path: '/console/api/admin/users/:id/overview',
      summary: 'One user: keys, recent calls, ledger, orders, plans and audit',
      auth: 'admin',
    },
    {
      id: 'adminAdjust',
      method: 'POST',
      path: '/console/api/admin/users/:id/adjustments',
      summary: 'Refund or debit with a reason (never below the available balance)',
      auth: 'admin',
      body: obj(
        { kind: { enum: ['refund', 'debit'] }, amount: positiveTokens(ADJUST_NOT_POSITIVE), reason: text(500) },
        ['kind', 'amount', 'reason'],
      ),
      status: 201,
    },
    {
      id: 'adminAudit',
      method: 'GET',
      path: '/console/api/admin/audit',
      summary: 'Audit log, newest first',
      auth: 'admin',
      query: [
        { name: 'user_id', description: 'the account concerned', schema: int },
        { name: 'q', description: 'the accounts concerned: email contains, key prefix (sk_...) or user id' },
        { name: 'actor_id', description: 'who did it', schema: int },
        { name: 'action', description: 'e.g. key.rotate' },
        ...pageOf(500),
      ],
    },
    ...(['users', 'orders', 'ledger'] as const).map(
      (t): ConsoleEndpoint => ({
        id: `adminExport_${t}`,
        method: 'GET',
        path: `/console/api/admin/exports/${t}.csv`,
        summary: `All ${t} as streamed CSV, newest first`,
        auth: 'admin',
        query: exportQuery,
        produces: 'text/csv',
      }),
    ),
  ];
}
