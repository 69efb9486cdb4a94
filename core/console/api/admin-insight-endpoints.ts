// The admin canary endpoints as data for the OpenAPI document; spread into CONSOLE_ENDPOINTS
// (console-endpoints.ts).
// A local shape (a subset of ConsoleEndpoint) so this file does not import its importer.
interface Endpoint {
  id: string;
  method: 'GET';
  path: string;
  summary: string;
  auth: 'admin';
  query?: Array<{ name: string; description: string; schema?: Record<string, unknown> }>;
  produces?: 'json+csv';
}

const int = { type: 'integer' };

export const ADMIN_INSIGHT_ENDPOINTS: Endpoint[] = [
  {
    id: 'adminCanaries',
    method: 'GET',
    path: '/console/api/admin/canaries',
    summary:
      'Canary state per operation and platform (with the last failure detail and the next probe) and the canaries configured',
    auth: 'admin',
  },
  {
    id: 'adminCanaryHistory',
    method: 'GET',
    path: '/console/api/admin/canaries/history',
    summary: 'Stored canary results, newest first: probes and the live successes counted instead of probes',
    auth: 'admin',
    query: [
      { name: 'operation', description: 'operation code', schema: { type: 'string', maxLength: 64 } },
      {
        name: 'platform',
        description: "platform ('' for an operation-wide sample)",
        schema: { type: 'string', maxLength: 32 },
      },
      { name: 'hours', description: '1-744, default 24', schema: { ...int, minimum: 1, maximum: 744 } },
      { name: 'limit', description: '1-1000, default 200', schema: { ...int, minimum: 1, maximum: 1000 } },
    ],
  },
];
