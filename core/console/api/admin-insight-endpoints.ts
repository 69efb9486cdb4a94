// Admin overview and order-cancel endpoints as data for the OpenAPI document; spread into
// CONSOLE_ENDPOINTS (console-endpoints.ts).
// A local shape (a subset of ConsoleEndpoint) so this file does not import its importer.
interface Endpoint {
  id: string;
  method: 'GET' | 'POST';
  path: string;
  summary: string;
  auth: 'admin';
  query?: Array<{ name: string; description: string; schema?: Record<string, unknown> }>;
  produces?: 'json+csv';
}

const int = { type: 'integer' };

export const ADMIN_INSIGHT_ENDPOINTS: Endpoint[] = [
  {
    id: 'adminRevenue',
    method: 'GET',
    path: '/console/api/admin/revenue',
    summary:
      'Revenue from credited orders per China day: plans and packages sold, their TOKEN value, money received and refunded per currency',
    auth: 'admin',
    query: [{ name: 'days', description: '1-366, default 30', schema: { ...int, minimum: 1, maximum: 366 } }],
  },
  {
    id: 'adminOperationHealth',
    method: 'GET',
    path: '/console/api/admin/operation-health',
    summary: 'Per-operation calls, success rate and p50/p95/p99 latency (ms, nearest rank) over the last hours',
    auth: 'admin',
    query: [{ name: 'hours', description: '1-744, default 24', schema: { ...int, minimum: 1, maximum: 744 } }],
  },
  {
    id: 'adminMargin',
    method: 'GET',
    path: '/console/api/admin/margin',
    summary:
      "Successful calls, revenue, upstream cost (cost_per_call of the upstream that served each call), the canaries' upstream cost (canary_cost: probes are not calls sold) and margin per China day, operation and upstream (TOKEN); format=csv for a CSV file",
    auth: 'admin',
    query: [
      { name: 'days', description: '1-366, default 30', schema: { ...int, minimum: 1, maximum: 366 } },
      { name: 'format', description: 'csv for a CSV file', schema: { type: 'string', enum: ['csv'] } },
    ],
    produces: 'json+csv',
  },
  {
    id: 'adminCancelOrder',
    method: 'POST',
    path: '/console/api/admin/orders/:id/cancel',
    summary: "Cancel any user's pending order (closed upstream where possible; idempotent)",
    auth: 'admin',
  },
];
