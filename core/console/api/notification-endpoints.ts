// The console routes of notifications and operator records (webhooks, exports) as data, for the OpenAPI document
// and request validation.
import { type ConsoleEndpoint, exportQuery, newWebhook, obj, pageOf } from './endpoint-schemas.js';

/** Notifications and operator records: webhooks and CSV exports. */
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
